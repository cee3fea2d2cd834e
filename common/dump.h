/**
 * @file dump.h
 * @brief A run's outputs as files, for a verdict made by another process.
 *
 * `./run --dump DIR` writes what each kernel's first run left in its output
 * buffers to files DIR/KERNEL.I.bin (output I of kernel KERNEL);
 * `./run --check-dump DIR`, given the same
 * options, launches nothing: it loads those files into the output buffers
 * and runs the same per-element checks on them. `make grade-NN` uses the
 * pair so that a student's program, whose host code is the student's in
 * part, never decides its own verdict: the lesson's program checks what
 * the student's program wrote (tests/classroom/grade.py).
 *
 * A file is a one-line header, `tutorial-dump 1 KERNEL I BYTES`, and the
 * buffer's bytes. dump_load() reads only a regular file (no link, pipe
 * or device) of exactly that size.
 */
#ifndef TUTORIAL_DUMP_H
#define TUTORIAL_DUMP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Copy @p bytes from the device buffer @p dev to a file in @p dir.
 *        Exits with ::EXIT_CUDA_ERROR on a CUDA error and prints why on a file error.
 * @param dir    the folder (--dump DIR)
 * @param name   the kernel's name (the table's row)
 * @param index  which of the row's outputs (0 for C)
 * @param dev    the device buffer
 * @param bytes  its size
 * @return 1 when written, 0 on a file error
 */
int dump_write(const char *dir, const char *name, int index, const void *dev, size_t bytes);

/**
 * @brief Load the file dump_write() wrote for @p name and @p index into the
 *        device buffer @p dev: it must be a regular file with the matching
 *        header and exactly @p bytes after it.
 * @param dir    the folder (--check-dump DIR)
 * @param name   the kernel's name
 * @param index  which of its outputs
 * @param dev    the device buffer, of @p bytes
 * @param bytes  its size
 * @param why    receives the reason when the file is not that (missing, a link, a wrong size)
 * @param whylen size of @p why
 * @return 1 when loaded, 0 when not
 */
int dump_load(const char *dir, const char *name, int index, void *dev, size_t bytes, char *why, size_t whylen);

#ifdef __cplusplus
}
#endif

#endif
