/*
 * fuzz: what every fuzz target defines.  Each tests/fuzz/fuzz_NAME.c is a
 * libFuzzer target (https://llvm.org/docs/LibFuzzer.html): it defines
 * LLVMFuzzerTestOneInput() and nothing else that is global.  The same
 * object links either with libFuzzer (clang -fsanitize=fuzzer, `make
 * fuzz`) or with replay.c, a plain main() that `make test` uses to run the
 * seed corpus and every saved crash with the normal compiler.
 *
 * A target returns 0, and aborts when the code under test breaks a promise
 * of its header (a broken invariant is a crash like any other).
 *
 * Ownership: the input belongs to the caller and is only valid during the
 * call; it is not NUL-terminated.
 */
#ifndef JOBDECK_FUZZ_H
#define JOBDECK_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
