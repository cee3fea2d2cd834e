# common/common.mk - the build rules every chapter shares.
#
# A chapter's Makefile sets, then includes this file:
#   CHAPTER     its folder name, e.g. 02_double_buffer
#   PARENT      the chapter whose kernel its lesson kernel extends (empty: none)
#   MIN_CC      the lowest compute capability it runs on, as digits (80 = 8.0)
#   MIN_CC_FOR  what needs it, for the messages (e.g. cp.async)
#   KNOBS       names of its tunable macros; each has a line
#                 NAME ?= default   # what it means
#               (their one home: the sources have no defaults, make help
#               reads this line) and reaches every .cu file of the chapter's
#               own (not its parents') as -DNAME=value
#   KNOBS_99KB, KNOBS_163KB   NAME=value ..., the defaults that change on
#               parts whose blocks may have that much shared memory
#               (common/arch.mk), so that every kernel fits there; they
#               also reach this chapter's kernel.cu where a later chapter
#               links it as its baseline
#   TOO_BIG_99KB, TOO_BIG_163KB   kernels no setting fits on such a part
#               (./run says so and goes on without them)
#   EXTRA_CU    other .cu files it links, e.g. its parent chapter's kernel.cu
#   EXTRA_C     other C files it links besides main.c (a demonstration, or a
#               host-side technique from the chapter that teaches it)
#   TC_CU       its tensor-core sources (kernel_tc.cu and a parent's), built
#               for sm_80 and later (mma.sync; wgmma on sm_90a); such a
#               build defines TUTORIAL_TC, and main.c lists their kernels
#               under it
#   TC_STEPS    its tensor-core steps in files of their own, each FILE:PARENT
#               (the file it extends): built with TC_CU, and shown by
#               `make diff-NAME` (04: static_tc.cu:kernel_tc.cu)
#   TC_PARENT   the chapter whose kernel_tc.cu its kernel_tc.cu extends,
#               where that is not PARENT
#   TC_PARENT_FILE  the file its kernel_tc.cu extends, where that is not
#               TC_PARENT's kernel_tc.cu (06: mbarrier_tc.cu, a step)
# On the command line:
#   ARCH=sm_90a|sm_89|sm_86|sm_80|sm_75   GPU target (common/arch.mk picks one)
#   TC_MMA=wgmma|mma_sync   the tensor-core line's MMA instruction: wgmma
#               where ARCH has it (sm_90a, the default there), else mma_sync
#   DEBUG=1     device debug build (-G), host -O0 -g
#   V=1         show the commands
#   WERROR=1    warnings are errors (the tests build this way)
#   TRACE=1     trace points in the chapter's own kernels (common/trace.cuh),
#               for ./run --trace FILE; the default build has none
#   BUILD=dir BIN=path   where objects and the program go (default build/ and ./run)

COMMON_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
CHAPTER_MAKEFILE := $(firstword $(MAKEFILE_LIST))
include $(COMMON_DIR)/arch.mk

NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
# the folder above nvcc's bin/, where it holds the headers (a wrapper script
# in /usr/local/bin, say, has none there: then /usr/local/cuda)
CUDA_HOME ?= $(or $(patsubst %/include/cuda_runtime_api.h,%,$(wildcard $(patsubst %/bin/nvcc,%,$(realpath \
  $(NVCC)))/include/cuda_runtime_api.h)),/usr/local/cuda)

# The consumers' share of a warp-specialized block's registers, derived from
# the producers': $(call split_consumer_regs,threads,producer threads,
# producer registers) is what each consumer thread can take (setmaxnreg; the
# kernels check a split with 03_warp_specialized/regs.cuh's CHECK_REG_SPLIT).
split_consumer_regs = $(shell t=$(1); p=$(2); r=$(3); l=$$((65536 / t / 8 * 8)); \
  c=$$(((t * l - p * r) / (t - p) / 8 * 8)); echo $$((c > 256 ? 256 : c)))

MIN_CC ?= 75
MIN_CC_FOR ?= CUDA 13, which builds nothing older
cc_dotted = $(shell echo '$(1)' | sed 's/\(.*\)\(.\)$$/\1.\2/')
# "02_double_buffer" -> "chapter 02", as the run-time messages say it
CHAPTER_LABEL := $(if $(filter 0% 1%,$(CHAPTER)),chapter $(firstword $(subst _, ,$(CHAPTER))),$(CHAPTER))
# CUDA 13 builds nothing below sm_75; a chapter's technique may need more.
ifneq ($(filter-out clean help diff print-% info,$(or $(MAKECMDGOALS),all)),)
  ifeq ($(shell [ '$(ARCH_CC)' -ge '$(MIN_CC)' ] 2>/dev/null && echo ok),)
    $(error $(CHAPTER_LABEL) needs compute capability $(call cc_dotted,$(MIN_CC)) for $(MIN_CC_FOR); ARCH=$(ARCH) is $(call cc_dotted,$(ARCH_CC)))
  endif
  ifeq ($(SMEM_PER_BLOCK),)
    $(error common/arch.mk has no shared memory per block for $(ARCH): add SMEM_PER_BLOCK_$(ARCH_CC), from the Programming Guide's table)
  endif
endif

# Machine code for ARCH, and its PTX beside it: a GPU of a later
# architecture (an sm_80 build on an H100) runs that PTX, compiled by the
# driver when the program starts: the same code ARCH's GPUs run.
GENCODE := -gencode arch=compute_$(ARCH_NUM),code=[sm_$(ARCH_NUM),compute_$(ARCH_NUM)]
BUILD ?= build
BIN ?= run

# On a part with less shared memory per block than Hopper, the chapter's
# KNOBS_<class> replace the defaults of the knobs not set on the command
# line or in the environment.
$(foreach kv,$(KNOBS_$(SMEM_CLASS)),$(if $(filter file,$(origin $(firstword $(subst =, ,$(kv))))),$(eval $(kv))))
KNOB_DEFS := $(foreach k,$(KNOBS),-D$(k)=$(strip $($(k))))
TOO_BIG := $(strip $(TOO_BIG_$(SMEM_CLASS)))
# A parent chapter's kernel linked as a baseline (../NN_x/kernel.cu) is
# built with that chapter's knobs for this part, as its own Makefile gives
# them: asked of it with nothing from this command line or environment
# (make chapter-04 STAGES=6 changes chapter 04's kernels, not chapter 03's).
# Asked once per parent (PKD_<dir> caches it).
parent_knob_defs = $(or $(PKD_$(dir $(1))),$(eval PKD_$(dir $(1)) := $(shell env -i PATH="$$PATH" \
                     $(MAKE) -s --no-print-directory -C $(dir $(1)) print-KNOB_DEFS \
                     ARCH=$(ARCH) SMEM_PER_BLOCK=$(SMEM_PER_BLOCK)))$(PKD_$(dir $(1))))
# The harness (common/runner.c) checks the GPU against these at run time.
CHAPTER_DEFS := -DTUTORIAL_MIN_CC=$(MIN_CC) \
                -DTUTORIAL_MIN_CC_FOR='"$(MIN_CC_FOR)"' -DTUTORIAL_ARCH='"$(ARCH)"' \
                -DTUTORIAL_SMEM_PER_BLOCK=$(SMEM_PER_BLOCK) -DTUTORIAL_TOO_BIG='"$(TOO_BIG)"'

# The tensor-core line (TC_CU) is built, and main.c lists it, from sm_80
# on: its MMA step (01_naive/blocked_tc.cuh) is wgmma where ARCH has it
# (sm_90a only: not sm_100a, not sm_120a) and mma.sync m16n8k16 with
# ldmatrix on every other ARCH; TC_MMA=mma_sync picks that one on sm_90a
# too. Every .cu file of the build gets the same (-DTC_WGMMA).
TC_MMA ?= $(if $(filter 90a,$(ARCH_NUM)),wgmma,mma_sync)
ifneq ($(filter-out clean help diff% print-% info,$(or $(MAKECMDGOALS),all)),)
  ifeq ($(filter wgmma mma_sync,$(TC_MMA)),)
    $(error TC_MMA=$(TC_MMA): wgmma or mma_sync)
  endif
  ifeq ($(TC_MMA)$(filter 90a,$(ARCH_NUM)),wgmma)
    $(error TC_MMA=wgmma: only sm_90a has wgmma; ARCH=$(ARCH) takes TC_MMA=mma_sync)
  endif
endif
ifeq ($(shell [ '$(ARCH_CC)' -ge 80 ] 2>/dev/null && echo tc),tc)
  CHAPTER_DEFS += -DTUTORIAL_TC -DTUTORIAL_TC_MMA='"$(TC_MMA)"' -DTUTORIAL_HAVE_WGMMA=$(if $(filter 90a,$(ARCH_NUM)),1,0)
  TC_LINE := 1
endif
TC_DEFS := -DTC_MMA=$(TC_MMA) -DTC_WGMMA=$(if $(filter wgmma,$(TC_MMA)),1,0) -DTUTORIAL_SETMAXNREG=$(if $(SETMAXNREG),1,0)

# -Wno-missing-field-initializers: a kernel table's FP32 rows leave launch_tc
# out ({"name", launcher, knobs}), as C zero-fills it.
CFLAGS_ALL := -std=c11 -Wall -Wextra -Wno-missing-field-initializers -Wpedantic -isystem $(CUDA_HOME)/include \
              -MMD -MP $(CHAPTER_DEFS)
# Trace points (common/trace.cuh) in this chapter's own .cu files, not in
# the parents' kernels it links.
ifeq ($(TRACE),1)
  TRACE_DEFS := -DTUTORIAL_TRACE
endif

NVCCFLAGS_ALL := -std=c++17 $(GENCODE) $(TC_DEFS) -Xcompiler -Wall,-Wextra -MMD -MP
ifeq ($(DEBUG),1)
  CFLAGS_ALL += -O0 -g
  NVCCFLAGS_ALL += -G -g -O0
else
  CFLAGS_ALL += -O2
  NVCCFLAGS_ALL += -O3 -lineinfo
endif
# -warn-spills: a register spilled to local memory is a warning, so an error here.
ifeq ($(WERROR),1)
  CFLAGS_ALL += -Werror
  NVCCFLAGS_ALL += -Werror all-warnings -Xptxas -warn-spills
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
# variants.cu: the chapter's measured alternatives to its lesson kernel, if any
CU_SRCS := kernel.cu $(wildcard variants.cu) $(EXTRA_CU)
# The tensor-core line, from sm_80 on (above).
STEP_CU := $(foreach s,$(TC_STEPS),$(firstword $(subst :, ,$(s))))
ifeq ($(TC_LINE),1)
  CU_SRCS += $(TC_CU) $(STEP_CU)
endif
C_SRCS := main.c $(EXTRA_C)
# ../01_naive/kernel.cu -> $(BUILD)/01_naive_kernel.o, so two kernel.cu never collide
src_obj = $(BUILD)/$(subst /,_,$(patsubst ../%,%,$(basename $(1)))).o
OBJS := $(foreach s,$(CU_SRCS) $(C_SRCS),$(call src_obj,$(s))) \
        $(patsubst $(COMMON_DIR)/%.c,$(BUILD)/common/%.o,$(COMMON_SRCS))

.PHONY: all clean ptx info help diff diff-tc smem FORCE
all: $(BIN)

# Rebuild when the flags change (a knob, ARCH, DEBUG), not only when sources do.
FLAGS_LINE = $(NVCC) $(NVCCFLAGS_ALL) $(KNOB_DEFS) $(foreach s,$(filter ../%,$(CU_SRCS)),$(call cu_defs,$(s))) $(TRACE_DEFS) | $(CC) $(CFLAGS_ALL)
$(BUILD)/flags: FORCE
	@mkdir -p $(BUILD)/common
	@echo '$(subst ','\'',$(FLAGS_LINE))' | cmp -s - $@ || echo '$(subst ','\'',$(FLAGS_LINE))' > $@

$(BIN): $(OBJS)
	@echo "  LINK    $@  ($(CHAPTER), $(ARCH)$(if $(strip $(KNOB_DEFS)), $(strip $(KNOB_DEFS)))$(if $(TRACE_DEFS), TRACE=1))"
	$(Q)$(NVCC) $(LDFLAGS_ALL) -o $@ $(OBJS) $(LDLIBS_ALL)

# The knobs a .cu file is built with: a parent's for the parent's kernel,
# this chapter's for every other (a source that uses a knob it is not given
# stops the build: the sources have no defaults).
cu_defs = $(if $(filter ../%,$(1)),$(call parent_knob_defs,$(1)),$(KNOB_DEFS))
# ptxas's info lines C7517 and C7519 say that it had to add a wgmma wait
# ("warpgroup.wait is injected") or arrive the code leaves out: the code
# reads wgmma's accumulators, or lets a wgmma write them, while a wgmma
# group that writes them may still run (a wgmma_wait(N) whose N leaves it
# in flight). The accumulators come out right, but what that wait was to
# protect does not: the stage of shared memory given back to the producers
# is refilled while the tensor cores may still read it. A WERROR=1 build
# stops on it (the tests build so); any other says it, and goes on.
WGMMA_ORDER_MSG := ptxas had to add a wgmma wait or arrive that the code leaves out (C7517/C7519, above): a wgmma group that writes the accumulators is still in flight where they are read, so whatever that wait protects (a stage given back to the producers) is not; wait for it (wgmma_wait) before reading the accumulators or releasing its stage
define cu_rule
$(call src_obj,$(1)): $(1) $(BUILD)/flags
	@echo "  NVCC    $$<"
	$$(Q)$$(NVCC) $$(NVCCFLAGS_ALL) $(call cu_defs,$(1)) $(if $(filter-out ../%,$(1)),$$(TRACE_DEFS)) -c $$< -o $$@ \
	  2>$$@.log; rc=$$$$?; cat $$@.log >&2; \
	  if [ $$$$rc = 0 ] && grep -q '(C751[79])' $$@.log; then \
	    echo "$$<: $(if $(filter 1,$(WERROR)),error,warning): $$(WGMMA_ORDER_MSG)" >&2; \
	    $(if $(filter 1,$(WERROR)),rm -f $$@; exit 1;) fi; exit $$$$rc
endef
$(foreach s,$(CU_SRCS),$(eval $(call cu_rule,$(s))))

define c_rule
$(call src_obj,$(1)): $(1) $(BUILD)/flags
	@echo "  CC      $$<"
	$$(Q)$$(CC) $$(CFLAGS_ALL) -c $$< -o $$@
endef
$(foreach s,$(C_SRCS),$(eval $(call c_rule,$(s))))

$(BUILD)/common/%.o: $(COMMON_DIR)/%.c $(BUILD)/flags
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

# PTX of the chapter's own kernels (kernel.cu, variants.cu, kernel_tc.cu, ...;
# not its demonstrations, nor a parent's), where the tests and make check-NN
# look for its technique; PTX_FILES="kernel variants" makes only those.
OWN_CU := $(filter-out ../% demos/%,$(CU_SRCS))
PTX_FILES ?= $(basename $(OWN_CU))
ptx: $(foreach p,$(PTX_FILES),$(BUILD)/$(p).ptx)
# -MMD: the PTX is remade when a header it includes changes (an exercise in
# 01_naive/blocked.cuh, say), not only the .cu file.
$(BUILD)/%.ptx: %.cu $(BUILD)/flags
	$(Q)$(NVCC) -ptx -std=c++17 -arch=compute_$(ARCH_NUM) $(TC_DEFS) $(KNOB_DEFS) -MMD -MP -MF $@.d -o $@ $<

# The diff engine of `make diff`, `make diff-tc` and `make diff-STEP` (the
# pages call these targets too): OLD against NEW with the classroom's
# exercise markers left out of both (common/regions.awk, the markers' one
# owner), so a diff shows code only; diff's exit 1 (the files differ) is
# no error here.
REGIONS_AWK := $(COMMON_DIR)/regions.awk
diff_files = @bash -c 'diff -u --label $(1) --label $(2) <(awk -v mode=clean -f $(REGIONS_AWK) $(1)) \
  <(awk -v mode=clean -f $(REGIONS_AWK) $(2)); test $$? -le 1'

# `make diff`: the lesson kernel against its parent's: the technique this chapter adds.
diff:
ifeq ($(strip $(PARENT)),)
	@echo "$(CHAPTER_LABEL) has no parent chapter: its kernel.cu is a starting point"
else
	$(call diff_files,../$(strip $(PARENT))/kernel.cu,kernel.cu)
endif

TC_PARENT ?= $(PARENT)
TC_PARENT_FILE ?= ../$(strip $(TC_PARENT))/kernel_tc.cu
# `make diff-tc`: the same for the tensor-core line, kernel_tc.cu against
# TC_PARENT_FILE: the parent chapter's kernel_tc.cu unless the chapter names
# another file (a step, TC_STEPS).
diff-tc:
ifeq ($(wildcard kernel_tc.cu),)
	@echo "$(CHAPTER_LABEL) has no tensor-core kernel"
else ifeq ($(wildcard $(TC_PARENT_FILE)),)
	@echo "$(CHAPTER_LABEL)'s kernel_tc.cu starts the tensor-core line: it has no parent"
else
	$(call diff_files,$(TC_PARENT_FILE),kernel_tc.cu)
endif

# `make diff-NAME` for each step in a file of its own (TC_STEPS' FILE:PARENT,
# e.g. 04's static_tc.cu:kernel_tc.cu): NAME.cu against the file it extends.
step_parent = $(lastword $(subst :, ,$(filter $(1):%,$(TC_STEPS))))
$(foreach f,$(STEP_CU),$(eval diff-$(basename $(f)): ; $$(call diff_files,$(call step_parent,$(f)),$(f))))

# `make help`: the targets, and each knob with its default and meaning as
# written on its `NAME ?= default  # meaning` line above.
help:
	@echo "$(CHAPTER): make [target] [KNOB=value ...]"
	@echo "targets:  all (default: build ./$(BIN))  clean  ptx (the kernel's PTX in $(BUILD)/)  info  help  smem"
	@echo "          diff (kernel.cu against $(or $(strip $(PARENT)),its parent's: it has none)/kernel.cu)"
	@$(if $(wildcard kernel_tc.cu),echo "          diff-tc (the tensor-core kernel, kernel_tc.cu, against its parent's; built for sm_80 and later)")
	@$(foreach f,$(STEP_CU),echo "          diff-$(basename $(f)) (a tensor-core step, $(f), against $(call step_parent,$(f)))";)
	@echo "needs:    compute capability $(call cc_dotted,$(MIN_CC)) ($(MIN_CC_FOR)); building for $(ARCH)"
	@echo "knobs (default, meaning):"
	@$(foreach k,$(KNOBS),sed -n 's/^$(k) *?=[^#]*#* *\(.*\)/  $(k)=$(strip $($(k)))	\1/p' $(CHAPTER_MAKEFILE) | expand -t 26;)
	@echo "shared memory: $(ARCH) lets a block have $(SMEM_PER_BLOCK) B (make smem: what each kernel asks for)"
	@$(if $(strip $(KNOBS_$(SMEM_CLASS))),echo "          so these defaults change on $(ARCH): $(strip $(KNOBS_$(SMEM_CLASS)))")
	@$(if $(TOO_BIG),echo "          and no setting fits $(TOO_BIG) there: ./run leaves it out on such a GPU")
	@echo "also:     ARCH=sm_NN  DEBUG=1  V=1  WERROR=1  BUILD=dir  BIN=path"
	@echo "          SMEM_PER_BLOCK=bytes (another part's settings, for ./run --smem-limit bytes)"
	@echo "          TRACE=1 (trace points for ./run --trace FILE; the default build has none)"
	@$(if $(TC_LINE),echo "          TC_MMA=wgmma|mma_sync (the tensor-core line's MMA instruction; for $(ARCH): $(TC_MMA))")

# `make smem`: each kernel's name and the dynamic shared memory per block
# its launcher asks for with this ARCH's knobs, from the sizes its
# SMEM_REPORT() line names (common/launch.cuh), computed on the host. The
# sizes are host-side constants: preprocessed for no GPU target, so that
# targets with the same knobs ask the same of the preprocessor.
smem:
	@bash $(COMMON_DIR)/smem.sh '$(NVCC) -E -x cu -std=c++17 -DTUTORIAL_SMEM_REPORT $(TC_DEFS)' \
	  $(foreach s,$(CU_SRCS),'$(s) $(call cu_defs,$(s))')

info:
	@echo "chapter  $(CHAPTER)"
	@echo "ARCH     $(ARCH)"
	@echo "knobs    $(KNOB_DEFS)"
	@echo "nvcc     $(NVCC)"

print-%:
	@echo '$($*)'

clean:
	rm -rf $(BUILD) $(BIN)

-include $(OBJS:.o=.d) $(wildcard $(BUILD)/*.ptx.d)
