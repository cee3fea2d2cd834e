# common/common.mk - build rules shared by every chapter.
#
# A chapter's Makefile sets
#   CHAPTER   folder name, e.g. 01_naive
#   KNOBS     names of its tunable macros (passed as -DNAME=VALUE when set,
#             to this chapter's kernel.cu only)
#   EXTRA_CU  other .cu files it links, e.g. the previous chapter's kernel.cu
#   EXTRA_C   other C files of its own besides main.c (e.g. a demo driver)
#   BENCH_KERNEL, BENCH_VARIANTS   what `make bench` sweeps (see tests/bench.sh)
# and includes this file. Useful variables on the command line:
#   ARCH=sm_90a|sm_89|sm_86|sm_80   GPU target (default: the GPU's own, else sm_90a)
#   DEBUG=1   device debug build (-G), host -O0 -g
#   V=1       show the commands
#   WERROR=1  warnings are errors (the tests build this way)
#   BUILD=dir BIN=path   where objects and the program go (default build/ and ./run)

COMMON_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(realpath $(NVCC)))

# The GPU's own architecture when one is present (Hopper gets the sm_90a
# target its special instructions need); sm_90a on machines without a GPU,
# so every chapter still compiles there.
ifeq ($(origin ARCH),undefined)
  DETECTED_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
  ARCH := $(if $(DETECTED_CC),sm_$(DETECTED_CC),sm_90a)
  ifeq ($(ARCH),sm_90)
    ARCH := sm_90a
  endif
endif
ARCH_NUM := $(patsubst sm_%,%,$(ARCH))
GENCODE := -gencode arch=compute_$(ARCH_NUM),code=sm_$(ARCH_NUM)

BUILD ?= build
BIN ?= run

KNOB_DEFS := $(foreach k,$(KNOBS),$(if $($(k)),-D$(k)=$($(k))))

CFLAGS_ALL := -std=c11 -Wall -Wextra -Wpedantic -isystem $(CUDA_HOME)/include -MMD -MP
# Knobs go to this chapter's kernel.cu only: a previous chapter's kernel
# linked as the baseline (EXTRA_CU) keeps its own tuned defaults.
NVCCFLAGS_ALL := -std=c++17 $(GENCODE) -Xcompiler -Wall,-Wextra -MMD -MP
ifeq ($(DEBUG),1)
  CFLAGS_ALL += -O0 -g
  NVCCFLAGS_ALL += -G -g -O0
else
  CFLAGS_ALL += -O2
  NVCCFLAGS_ALL += -O3 -lineinfo
endif
ifeq ($(WERROR),1)
  CFLAGS_ALL += -Werror
  NVCCFLAGS_ALL += -Werror all-warnings
endif
# cuBLAS is the reference and the yardstick; cudart is linked statically by nvcc.
LDFLAGS_ALL := $(GENCODE) -L$(CUDA_HOME)/lib64 -Xlinker -rpath,$(CUDA_HOME)/lib64
LDLIBS_ALL := -lcublas

ifeq ($(V),1)
  Q :=
else
  Q := @
endif

COMMON_SRCS := $(wildcard $(COMMON_DIR)/*.c)
CU_SRCS := kernel.cu $(EXTRA_CU)
# ../01_naive/kernel.cu -> $(BUILD)/01_naive_kernel.o, so two kernel.cu never collide
cu_obj = $(BUILD)/$(subst /,_,$(patsubst ../%,%,$(patsubst %.cu,%,$(1)))).o
OBJS := $(foreach s,$(CU_SRCS),$(call cu_obj,$(s))) $(BUILD)/main.o \
        $(patsubst %.c,$(BUILD)/%.o,$(EXTRA_C)) \
        $(patsubst $(COMMON_DIR)/%.c,$(BUILD)/common/%.o,$(COMMON_SRCS))

.PHONY: all clean ptx info FORCE
all: $(BIN)

# Rebuild when the flags change (a knob, ARCH, DEBUG), not only when sources do.
$(BUILD)/flags: FORCE
	@mkdir -p $(BUILD)/common
	@echo '$(NVCC) $(NVCCFLAGS_ALL) $(KNOB_DEFS) | $(CC) $(CFLAGS_ALL)' | cmp -s - $@ || \
	 echo '$(NVCC) $(NVCCFLAGS_ALL) $(KNOB_DEFS) | $(CC) $(CFLAGS_ALL)' > $@

$(BIN): $(OBJS)
	@echo "  LINK    $@  ($(CHAPTER), $(ARCH)$(if $(strip $(KNOB_DEFS)), $(strip $(KNOB_DEFS))))"
	$(Q)$(NVCC) $(LDFLAGS_ALL) -o $@ $(OBJS) $(LDLIBS_ALL)

define cu_rule
$(call cu_obj,$(1)): $(1) $(BUILD)/flags
	@echo "  NVCC    $$<"
	$$(Q)$$(NVCC) $$(NVCCFLAGS_ALL) $(if $(filter kernel.cu,$(1)),$$(KNOB_DEFS)) -c $$< -o $$@
endef
$(foreach s,$(CU_SRCS),$(eval $(call cu_rule,$(s))))

$(BUILD)/main.o $(patsubst %.c,$(BUILD)/%.o,$(EXTRA_C)): $(BUILD)/%.o: %.c $(BUILD)/flags
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/common/%.o: $(COMMON_DIR)/%.c $(BUILD)/flags
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

# PTX of the chapter's kernel, for the tests that check the technique is really there.
ptx: $(BUILD)/kernel.ptx
$(BUILD)/kernel.ptx: kernel.cu $(BUILD)/flags
	$(Q)$(NVCC) -ptx -std=c++17 -arch=compute_$(ARCH_NUM) $(KNOB_DEFS) -o $@ $<

info:
	@echo "chapter  $(CHAPTER)"
	@echo "ARCH     $(ARCH)"
	@echo "knobs    $(KNOBS)$(if $(KNOB_DEFS), (set: $(KNOB_DEFS)))"
	@echo "nvcc     $(NVCC)"

print-%:
	@echo '$($*)'

clean:
	rm -rf build $(BIN)

-include $(OBJS:.o=.d)
