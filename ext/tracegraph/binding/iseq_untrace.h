/*
 * iseq_untrace.h - turns Ruby's traced instructions (trace_*) back into
 * their plain forms once no hook wants them, so that the program runs as
 * before it was profiled, and YJIT compiles it again (iseq_untrace.c).
 */
#ifndef TRACEGRAPH_ISEQ_UNTRACE_H
#define TRACEGRAPH_ISEQ_UNTRACE_H

#include <ruby.h>
#include <stdbool.h>
#include <stddef.h>

/* What iseq_untrace_all did. */
typedef struct iseq_untrace_counts {
    size_t iseqs;          /* instruction sequences looked at */
    size_t instructions;   /* traced instructions made plain */
    size_t kept;           /* sequences left traced: a TracePoint targets them */
    size_t kept_instructions; /* left traced: operators whose trace_ forms are one code */
    bool yjit_invalidated; /* YJIT's code was thrown away, to be compiled again */
} iseq_untrace_counts;

/* Checks, once per process, that this Ruby's instruction table and
 * instruction sequences are as iseq_untrace.c reads them, on a throwaway
 * sequence that it traces and untraces. NULL if they are; else why not
 * (a static string), and then nothing here writes. Outside any hook, with
 * the GVL (it compiles Ruby code). */
const char *iseq_untrace_unsure(void);

/* Makes every traced instruction of every instruction sequence in the
 * heap plain, except in sequences a targeted TracePoint watches; resets
 * each sequence's record of the events it was traced for; then has YJIT
 * (if on) throw away the code it compiled while they were traced. Call it
 * only when iseq_untrace_unsure() is NULL and no hook wants any event that
 * instructions carry. NULL on success; else why it stopped (the rest is
 * left traced, which is always a valid state). */
const char *iseq_untrace_all(iseq_untrace_counts *counts);

/* For tests: how many instructions of `iseq` (a RubyVM::InstructionSequence)
 * are traced now; -1 if unsure. */
long iseq_untrace_traced_in(VALUE iseqw);

/* Defines Tracegraph._traced_instructions and _untrace_unsure (for tests). */
void iseq_untrace_init(VALUE mTracegraph);

#endif
