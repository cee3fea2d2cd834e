# common/arch.mk - which GPU architecture to build for, decided once and
# included by the top-level Makefile and by every chapter (common.mk).
#
# ARCH=sm_90a|sm_89|sm_86|sm_80|sm_75|... on the command line wins. Otherwise
# the GPU in this machine decides (nvidia-smi), with Hopper getting the sm_90a
# target its special instructions (setmaxnreg, wgmma) need; on a machine
# without a GPU it is sm_90a, so every chapter still compiles there.
ifeq ($(origin ARCH),undefined)
  DETECTED_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
  ARCH := $(if $(DETECTED_CC),sm_$(DETECTED_CC),sm_90a)
  ifeq ($(ARCH),sm_90)
    ARCH := sm_90a
  endif
endif
# sm_90a -> 90a (for -gencode) and 90 (for comparisons)
ARCH_NUM := $(patsubst sm_%,%,$(ARCH))
ARCH_CC := $(shell echo '$(ARCH_NUM)' | tr -cd '0-9')
# 1 where ARCH has setmaxnreg (the architecture-specific targets from
# sm_90a on, 03_warp_specialized/regs.cuh): the warp-specialized kernels'
# register split, and the defaults that need it (TC_BN=256 beside 3
# warpgroups), exist only there.
SETMAXNREG := $(if $(filter 9% 1%,$(ARCH_NUM)),$(if $(filter %a %f,$(ARCH_NUM)),1))

# The most dynamic shared memory one block may opt in to on ARCH, in bytes
# (cudaDevAttrMaxSharedMemoryPerBlockOptin; the CUDA C++ Programming Guide's
# table of technical specifications per compute capability). A chapter whose
# defaults need more on a smaller part says, in its Makefile, which knobs
# change there (KNOBS_99KB, KNOBS_163KB); `make smem` lists what each kernel
# asks for. SMEM_PER_BLOCK=bytes on the command line builds another part's
# settings for this ARCH (to try them on a larger GPU: ./run --smem-limit).
SMEM_PER_BLOCK_75  := 65536
SMEM_PER_BLOCK_80  := 166912
SMEM_PER_BLOCK_86  := 101376
SMEM_PER_BLOCK_87  := 166912
SMEM_PER_BLOCK_89  := 101376
SMEM_PER_BLOCK_90  := 232448
SMEM_PER_BLOCK_100 := 232448
SMEM_PER_BLOCK_120 := 101376
# ARCHes the tests check every chapter's shared memory against
SMEM_ARCHES := sm_75 sm_80 sm_86 sm_87 sm_89 sm_90a sm_100a sm_120a
# (empty for an ARCH not in the table: common.mk stops a build for it)
SMEM_PER_BLOCK ?= $(SMEM_PER_BLOCK_$(ARCH_CC))
# 232448 -> 227KB, 166912 -> 163KB, 101376 -> 99KB, 65536 -> 64KB
SMEM_CLASS := $(if $(SMEM_PER_BLOCK),$(shell echo $$(( $(SMEM_PER_BLOCK) / 1024 )))KB)
