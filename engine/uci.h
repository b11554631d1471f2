/* uci.h - capa-engine as a UCI engine, speaking the protocol the way
 * Fairy-Stockfish does for the Capablanca family: a UCI_Variant combo
 * (capablanca, caparandom, gothic, embassy, janus), UCI_Chess960,
 * Hash, Threads (fixed to 1), "Clear Hash", and every evaluation parameter
 * as a spin option of its own name. The search runs on its own thread, so
 * stop, isready and quit are answered while it thinks. Unknown or malformed
 * input is answered with an "info string" line and otherwise ignored.
 */
#ifndef CAPA_ENGINE_UCI_H
#define CAPA_ENGINE_UCI_H

#include <stdio.h>

/* Runs the protocol on in/out until "quit" or end of input. Returns 0. */
int uci_loop(FILE *in, FILE *out);
/* capa-engine uci (the default command): uci_loop on stdin/stdout. */
int uci_main(int argc, char **argv);

#endif
