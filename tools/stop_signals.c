/* The CLI's stop signals (stop_signals.h). */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "stop_signals.h"

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

void cli_hold_stop_signals(bool hold, sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
        sigaddset(&set, stop_signals[i]);
    if (hold) pthread_sigmask(SIG_BLOCK, &set, old);
    else pthread_sigmask(SIG_SETMASK, old, NULL);
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

