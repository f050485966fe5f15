/* The CLI's stop signals, POSIX side (stop_signals.h). */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "os.h"
#include "stop_signals.h"

/* Sent to a reader thread to end a read it is blocked in; does nothing else. */
#define CLI_WAKE_SIGNAL SIGUSR2

volatile sig_atomic_t cli_stop_signal;

static void on_stop_signal(int sig)
{
    cli_stop_signal = sig;
}

static void on_wake_signal(int sig)
{
    (void)sig;
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

/*
 * First signal: finish gracefully. SA_RESETHAND makes a second one fatal
 * at once, for a user who does not want to wait. No SA_RESTART: a read
 * blocked on a pipe returns, so that the stop does not wait for input.
 */
void cli_install_stop_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
        sigaction(stop_signals[i], &sa, NULL);
    /* No SA_RESTART: a reader's blocked read returns EINTR. */
    sa.sa_handler = on_wake_signal;
    sa.sa_flags = 0;
    sigaction(CLI_WAKE_SIGNAL, &sa, NULL);
}

void cli_hold_stop_signals(bool hold, CliSignalHold *saved)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
        sigaddset(&set, stop_signals[i]);
    if (hold) pthread_sigmask(SIG_BLOCK, &set, &saved->old);
    else pthread_sigmask(SIG_SETMASK, &saved->old, NULL);
}

const char *cli_signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}


void cli_reader_wakeable(void)
{
    /* The stop signals stay blocked (the thread was made while they were
     * held): they are for the main thread. The wake signal ends a read. */
    sigset_t wake;
    sigemptyset(&wake);
    sigaddset(&wake, CLI_WAKE_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &wake, NULL);
}

#if defined(__GLIBC__)
/* glibc's, not POSIX's: declared here so that the file needs no _GNU_SOURCE. */
extern int pthread_timedjoin_np(pthread_t thread, void **ret, const struct timespec *abstime);

void cli_join_reader(pthread_t t)
{
    for (;;) {
        const struct timespec d = vmaf_os_deadline_ms(50);
        if (!pthread_timedjoin_np(t, NULL, &d)) break;
        pthread_kill(t, CLI_WAKE_SIGNAL);
    }
}
#else
/* No timed join (macOS): one wake-up, then a plain join; a reader blocked
 * again after it was told to stop checks its stop flag on the read's return. */
void cli_join_reader(pthread_t t)
{
    pthread_kill(t, CLI_WAKE_SIGNAL);
    pthread_join(t, NULL);
}
#endif
