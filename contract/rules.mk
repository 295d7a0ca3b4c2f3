# contract/rules.mk - compiles the floor of shared C contracts (contract/*.c, contract/README.md):
# each file once into build/obj/contract/NAME.o, and position-independent with hidden visibility
# into build/obj/contract/pic/NAME.o for the preloaded libraries.
# Always holds: the Makefile includes this file before every other rules.mk, so their rules may
# name these variables; a program links only the floor objects it uses, named through
# $(call CONTRACT_OBJ,NAMES) or $(call CONTRACT_PIC,NAMES); the floor compiles with -Icontract only.

CONTRACT_H     := $(wildcard contract/*.h)
CONTRACT_OBJ    = $(patsubst %,$(B)/obj/contract/%.o,$(1))
CONTRACT_PIC    = $(patsubst %,$(B)/obj/contract/pic/%.o,$(1))
# The workload side of the phase protocol: records, phases, latency sampler, histogram, clocks.
CONTRACT_PHASE := wl_record wl_phase wl_latency wl_latmode wl_time wl_hist wl_clock

$(B)/obj/contract/%.o: contract/%.c $(CONTRACT_H) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icontract -c $< -o $@

$(B)/obj/contract/pic/%.o: contract/%.c $(CONTRACT_H) | $(B)/.dir
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -Icontract -c $< -o $@

# Real targets, not intermediates make may delete after linking.
.SECONDARY: $(patsubst contract/%.c,$(B)/obj/contract/%.o,$(wildcard contract/*.c)) \
            $(patsubst contract/%.c,$(B)/obj/contract/pic/%.o,$(wildcard contract/*.c))
