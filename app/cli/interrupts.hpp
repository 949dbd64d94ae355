#pragma once
// Ctrl-C (SIGINT) or SIGTERM during a long command (train, compare, equivalence): the command
// notices between steps, stops, keeps what it has written, and exits 130.

namespace distlab::cli {

/// Routes SIGINT and SIGTERM to the flag interrupted() reads, instead of ending the process.
void catchInterrupts();

/// Whether SIGINT or SIGTERM arrived since catchInterrupts() (a volatile sig_atomic_t, as before
/// the three commands shared it; compare polls it from its variants' threads too).
bool interrupted();

}  // namespace distlab::cli
