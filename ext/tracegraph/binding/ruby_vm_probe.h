/*
 * ruby_vm_probe.h - checks the VM reads of ruby_vm.h against calls of
 * known shapes (ruby_vm_probe.c), once, before the hook trusts them.
 */
#ifndef TRACEGRAPH_RUBY_VM_PROBE_H
#define TRACEGRAPH_RUBY_VM_PROBE_H

#include "ruby_vm.h"

/* Runs Tracegraph::FrameProbe (`probe`) under a probe hook and returns
 * what can be trusted: all zero (the public API only) if any read
 * differs, or if TRACEGRAPH_NO_VM_READS is set. Outside any hook, with
 * the GVL; re-raises what the probe's Ruby raised. */
ruby_vm_layout ruby_vm_probe_layout(VALUE probe);

/* Defines Tracegraph._vm_probe_verdict, what the last probe found. */
void ruby_vm_probe_init(VALUE mTracegraph);

#endif
