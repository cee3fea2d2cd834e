/**
 * @file watchdog.h
 * @brief Turn a hung kernel into a message and exit code ::EXIT_WATCHDOG.
 *
 * A pipelined kernel with a missing arrive or a mismatched barrier does not
 * crash: it spins forever, and cudaDeviceSynchronize() never returns. The
 * watchdog arms a POSIX interval timer before each phase; if the phase has
 * not finished when it fires, the signal handler prints which phase hung and
 * ends the process, which also tears down the GPU context.
 */
#ifndef TUTORIAL_WATCHDOG_H
#define TUTORIAL_WATCHDOG_H

/**
 * @brief Start (or restart) the countdown for the phase named @p what.
 * @param seconds limit, > 0
 * @param what    phase name printed if the limit passes
 */
void watchdog_arm(double seconds, const char *what);

/** @brief Stop the countdown: the phase finished. */
void watchdog_disarm(void);

#endif
