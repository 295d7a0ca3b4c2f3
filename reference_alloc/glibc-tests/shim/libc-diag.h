/* libc-diag.h - glibc's internal macros that silence a compiler warning around a line on
 * purpose; here they expand to GCC's diagnostic pragmas.
 * Always holds: push/ignore/pop pair up exactly as in glibc's include/libc-diag.h. */
#ifndef HB_LIBC_DIAG_H
#define HB_LIBC_DIAG_H
#define HB_DIAG_STR(x) #x
#define HB_DIAG_PRAGMA(x) _Pragma(HB_DIAG_STR(GCC diagnostic x))
#define DIAG_PUSH_NEEDS_COMMENT HB_DIAG_PRAGMA(push)
#define DIAG_POP_NEEDS_COMMENT HB_DIAG_PRAGMA(pop)
#define DIAG_IGNORE_NEEDS_COMMENT(version, option) HB_DIAG_PRAGMA(ignored option)
#define DIAG_IGNORE_Os_NEEDS_COMMENT(version, option) HB_DIAG_PRAGMA(ignored option)
#define DIAG_PUSH_NEEDS_COMMENT_CLANG
#define DIAG_POP_NEEDS_COMMENT_CLANG
#define DIAG_IGNORE_NEEDS_COMMENT_CLANG(version, option)
#endif
