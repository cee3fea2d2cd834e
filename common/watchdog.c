/**
 * @file watchdog.c
 * @brief SIGALRM-based phase timeout (see watchdog.h).
 */
#define _POSIX_C_SOURCE 200809L /**< for sigaction() and setitimer() */
#include "watchdog.h"
#include "exit_codes.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* Built before arming: a signal handler may only call async-signal-safe
 * functions, so it writes this prepared text and nothing else. */
static char message[512];
static size_t message_len;

static void on_alarm(int sig)
{
    ssize_t ignored;
    (void)sig;
    ignored = write(STDERR_FILENO, message, message_len);
    (void)ignored;
    _exit(EXIT_WATCHDOG);
}

void watchdog_arm(double seconds, const char *what)
{
    struct sigaction sa;
    struct itimerval it;
    int len = snprintf(message, sizeof message,
                       "\nwatchdog: '%s' did not finish within %g s - kernel did not finish, deadlock?\n"
                       "          (raise the limit with --timeout S if the problem is just large)\n"
                       "FAILED (exit %d: watchdog timeout)\n",
                       what, seconds, EXIT_WATCHDOG);
    message_len = len < 0 ? 0 : (size_t)len < sizeof message ? (size_t)len : sizeof message - 1;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)seconds;
    it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0) it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
}

void watchdog_disarm(void)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
}
