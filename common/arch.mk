# common/arch.mk - which GPU architecture to build for, decided once and
# included by the top-level Makefile and by every chapter (common.mk).
#
# ARCH=sm_90a|sm_89|sm_86|sm_80|sm_75 on the command line wins. Otherwise the
# GPU in this machine decides (nvidia-smi), with Hopper getting the sm_90a
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
