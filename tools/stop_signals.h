/*
 * The CLI's signals. SIGINT, SIGTERM and SIGHUP ask it to stop: it stops
 * reading, finishes the frames in flight and writes what it has, marked
 * incomplete (incomplete.h); a second one ends the process at once.
 * CLI_WAKE_SIGNAL ends a read a reader thread is blocked in (readers.h).
 */
#ifndef EXACTVMAF_TOOLS_STOP_SIGNALS_H
#define EXACTVMAF_TOOLS_STOP_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/** The signal that asked us to stop (0: none). */
extern volatile sig_atomic_t cli_stop_signal;

/** Sent to a reader thread to end a read it is blocked in; does nothing else. */
#define CLI_WAKE_SIGNAL SIGUSR2

/** Install the handlers of the stop signals and of CLI_WAKE_SIGNAL. */
void cli_install_stop_handlers(void);

/*
 * Hold the stop signals (they stay pending) or release them. Threads
 * created while they are held never receive them, so that they reach the
 * reading thread.
 */
void cli_hold_stop_signals(bool hold, sigset_t *old);

/** "SIGINT", "SIGTERM", "SIGHUP", else "a signal". */
const char *cli_signal_name(int sig);

#endif
