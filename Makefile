# Intra-kernel pipelining on NVIDIA GPUs - a step-by-step CUDA tutorial.
# `make help` lists the targets.

CHAPTER_DIRS := $(patsubst %/Makefile,%,$(sort $(wildcard [0-9][0-9]_*/Makefile)))

# Decide ARCH once here (common/arch.mk) and hand it to every chapter build.
include common/arch.mk
export ARCH
# CHAPTERS="02_double_buffer" limits test, test-gpu and bench to those chapters
export CHAPTERS

chapter_num = $(firstword $(subst _, ,$(1)))
CHAPTER_TARGETS := $(foreach d,$(CHAPTER_DIRS),chapter-$(call chapter_num,$(d)))
DIFF_TARGETS := $(foreach d,$(CHAPTER_DIRS),diff-$(call chapter_num,$(d)))
EXERCISE_TARGETS := $(foreach d,$(CHAPTER_DIRS),exercise-$(call chapter_num,$(d)))
CHECK_TARGETS := $(foreach d,$(CHAPTER_DIRS),check-$(call chapter_num,$(d)))
GRADE_TARGETS := $(foreach d,$(CHAPTER_DIRS),grade-$(call chapter_num,$(d)))

.PHONY: help all smem ceiling test test-deps test-gpu bench traces docs tables figures clean handout \
        $(CHAPTER_TARGETS) $(DIFF_TARGETS) $(EXERCISE_TARGETS) $(CHECK_TARGETS) $(GRADE_TARGETS)

help:
	@echo "Intra-kernel pipelining on NVIDIA GPUs - targets:"
	@echo "  make chapter-NN      build chapter NN and point ./run at it, e.g. make chapter-01 && ./run"
	@$(foreach d,$(CHAPTER_DIRS),echo "      chapter-$(call chapter_num,$(d))       $(d)";)
	@echo "  make diff-NN         what chapter NN's kernel.cu adds to its parent chapter's, as a diff"
	@echo "  make exercise-NN     the student's starter of chapter NN in exercises/NN/ (FRESH=1: start again)"
	@echo "  make check-NN        check the student's chapter NN (DIR=path: another copy of it)"
	@echo "  make grade-NN        grade a class: SUBMISSIONS=DIR, one folder per student -> DIR-grades-NN/grades-NN.csv"
	@echo "                       (GRADEBOOK=dir  RUBRIC=file  GPUS=\"0 1\"  PER_GPU=n  JOBS=n  SLURM=1: a Slurm job array instead)"
	@echo "  make handout         the student copy of the repository: handout.tar.gz (KEEP=\"01 02\": keep those answers)"
	@echo "  make all             build every chapter this ARCH can run"
	@echo "  make smem            each kernel's shared memory per block on ARCH, and what ARCH allows"
	@echo "  make ceiling         this GPU's instruction ceilings: FFMA, mma.sync, wgmma (chapter 01's ./run --only ceiling)"
	@echo "  make test            the quick suite: host tests, and on a GPU a quick GPU tier"
	@echo "  make test-deps       install what the suite needs on Debian or Ubuntu (apt-get; sudo unless root)"
	@echo "  make test-gpu        the full GPU suite: every shape, knob setting, planted fault, sanitizer tool"
	@echo "  make bench           time every chapter at its default size -> docs/results/<gpu>.csv"
	@echo "  make traces          record each chapter's trace (TRACE=1 builds) -> docs/traces/, and its cost"
	@echo "  make figures         render docs/images/*.svg from the results and docs/figures/ (gnuplot, Graphviz)"
	@echo "  make docs            regenerate the results tables, then the Doxygen site in docs/html"
	@echo "  make clean           remove build outputs"
	@echo "variables: ARCH=$(ARCH) (auto)  DEBUG=1  V=1  TRACE=1 (trace points: ./run --trace FILE)"
	@echo "           and each chapter's knobs (make chapter-01 BK=16;"
	@echo "           cd 01_naive && make help lists them)"

# Chapters whose minimum compute capability is above ARCH are left out, saying so.
all:
	@set -e; $(foreach d,$(CHAPTER_DIRS),\
	  if [ $$($(MAKE) -s --no-print-directory -C $(d) print-MIN_CC) -le $(ARCH_CC) ]; then \
	    $(MAKE) --no-print-directory -C $(d); \
	  else echo "skipping $(d): it needs compute capability $$($(MAKE) -s --no-print-directory -C $(d) print-MIN_CC) (ARCH=$(ARCH))"; fi;)

# Each chapter's `make smem` (the dynamic shared memory each kernel asks
# for on ARCH), under a line with what ARCH lets one block have.
smem:
	@echo "# ARCH=$(ARCH): at most $(SMEM_PER_BLOCK) B of shared memory per block (common/arch.mk)"
	@set -e; $(foreach d,$(CHAPTER_DIRS),\
	  if [ $$($(MAKE) -s --no-print-directory -C $(d) print-MIN_CC) -le $(ARCH_CC) ]; then \
	    echo "# $(d)"; $(MAKE) -s --no-print-directory -C $(d) smem; \
	  else echo "# $(d): not built for $(ARCH) (it needs compute capability $$($(MAKE) -s --no-print-directory -C $(d) print-MIN_CC))"; fi;)

# The instruction ceilings the lines run against, on this GPU: chapter 01's
# first table, from a build of its own (the user's build stays as it is).
ceiling:
	@$(MAKE) -s --no-print-directory -C 01_naive BUILD=build/ceiling BIN=build/ceiling/run && \
	  01_naive/build/ceiling/run --only ceiling

# chapter-01: build 01_naive and make ./run point at 01_naive/run
define chapter_rule
chapter-$(call chapter_num,$(1)):
	@$$(MAKE) --no-print-directory -C $(1) && ln -sfn $(1)/run run && echo "./run -> $(1)/run"
endef
$(foreach d,$(CHAPTER_DIRS),$(eval $(call chapter_rule,$(d))))

# diff-03: chapter 03's lesson kernel against its parent's (make -C 03_warp_specialized diff)
define diff_rule
diff-$(call chapter_num,$(1)):
	@$$(MAKE) -s --no-print-directory -C $(1) diff
endef
$(foreach d,$(CHAPTER_DIRS),$(eval $(call diff_rule,$(d))))

# The classroom (tests/classroom/): exercise regions in the lesson code,
# the student's starter, the checker and the handout.
define classroom_rule
exercise-$(call chapter_num,$(1)):
	@bash tests/classroom/exercise.sh $(call chapter_num,$(1))
check-$(call chapter_num,$(1)):
	@python3 tests/classroom/check.py $(call chapter_num,$(1)); rc=$$$$?; case $$$$rc in \
	  0) ;; 1) echo "make check-$(call chapter_num,$(1)): FAILED (exit 1)";; \
	  3) echo "make check-$(call chapter_num,$(1)): stopped after the PTX part, which passed: no GPU for the rest (exit 3)";; \
	  *) echo "make check-$(call chapter_num,$(1)): could not check (exit $$$$rc)";; esac; exit $$$$rc
grade-$(call chapter_num,$(1)):
	@python3 tests/classroom/grade.py $(call chapter_num,$(1))
endef
$(foreach d,$(CHAPTER_DIRS),$(eval $(call classroom_rule,$(d))))

handout:
	@bash tests/classroom/handout.sh

test:
	@bash tests/run.sh

# What the suite needs that a fresh Debian or Ubuntu machine lacks (besides
# the CUDA Toolkit): `make test-deps test` sets up and runs it in one go.
TEST_DEPS := doxygen graphviz gnuplot-nox patch bubblewrap python3-pytest python3-pytest-xdist python3-pytest-timeout
test-deps:
	@missing=$$(for p in $(TEST_DEPS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "make test-deps: installed already: $(TEST_DEPS)"; exit 0; fi; \
	command -v apt-get >/dev/null || { echo "make test-deps: no apt-get here; install:" $$missing; exit 3; }; \
	sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; echo "make test-deps: installing" $$missing; \
	$$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	  --no-install-recommends $$missing >/dev/null

test-gpu:
	@bash tests/run.sh --gpu

bench:
	@bash tests/bench.sh

traces:
	@bash tests/trace.sh

tables:
	@python3 docs/gen_pages.py

figures:
	@command -v gnuplot >/dev/null && command -v dot >/dev/null || \
	 { echo "make figures needs gnuplot and Graphviz (apt-get install gnuplot-nox graphviz)"; exit 3; }
	@bash docs/figures.sh

docs: tables
	@command -v doxygen >/dev/null || { echo "doxygen not found (apt-get install doxygen graphviz)"; exit 3; }
	@rm -rf docs/html docs/doxygen_warnings.log
	@( cat docs/Doxyfile; echo "INPUT += $(CHAPTER_DIRS) $(wildcard $(addsuffix /demos,$(CHAPTER_DIRS)))" ) | doxygen - || \
	 { cat docs/doxygen_warnings.log; exit 1; }
	@if [ -s docs/doxygen_warnings.log ]; then cat docs/doxygen_warnings.log; exit 1; fi
	@# Pages link figures as ../docs/images/x.svg (from a chapter) or images/x.svg
	@# (from docs/), which is right on a Git host; the site gets its own copy.
	@cp -r docs/images docs/html/ && sed -i 's#src="\.\./docs/images/#src="images/#g' docs/html/*.html
	@# A chapter page's links to a section of its notes (NOTES.md#id, right on a
	@# Git host) go to that section of the notes' HTML page.
	@for f in docs/html/md_[0-9][0-9]_*_README.html; do b=$$(basename "$${f%README.html}"); \
	  sed -i 's#href="NOTES\.md\##href="'"$$b"'NOTES.html\##g' "$$f"; done
	@# Each chapter's BM, STAGES, ... link to that chapter's definition.
	@bash docs/link_macros.sh
	@echo "open docs/html/index.html"

clean:
	@$(foreach d,$(CHAPTER_DIRS),$(MAKE) --no-print-directory -C $(d) clean;)
	rm -rf run tests/build docs/html docs/doxygen_warnings.log handout.tar.gz
	@[ ! -d exercises ] || echo "exercises/ (students' work) is left as it is"

