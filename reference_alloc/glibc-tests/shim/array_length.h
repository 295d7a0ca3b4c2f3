/* array_length.h - glibc's internal array_length(var) macro: the element count of an array.
 * Always holds: only valid on arrays, as in glibc. */
#ifndef HB_ARRAY_LENGTH_H
#define HB_ARRAY_LENGTH_H
#define array_length(var) (sizeof(var) / sizeof((var)[0]))
#define array_end(var) (&(var)[array_length(var)])
#endif
