/**
 * @file exit_codes.h
 * @brief The process exit codes every chapter uses, so scripts and tests can
 *        tell a wrong answer from a missing GPU or a hang.
 */
#ifndef TUTORIAL_EXIT_CODES_H
#define TUTORIAL_EXIT_CODES_H

/** @brief Exit status of every chapter's `./run` (and of the test helpers). */
enum tutorial_exit_code {
    EXIT_VERIFIED = 0,       /**< every result checked and correct */
    EXIT_VERIFY_FAILED = 1,  /**< at least one result was wrong */
    EXIT_USAGE = 2,          /**< bad command line */
    EXIT_UNSUPPORTED = 3,    /**< no GPU, compute capability too low, feature missing */
    EXIT_CUDA_ERROR = 4,     /**< a CUDA, cuBLAS or driver call failed */
    EXIT_WATCHDOG = 5        /**< a phase ran past --timeout (deadlock?) */
};

#endif
