/*===- EmulationRuntime.h - counters and race checks of the GPU emulation -*- C -*-===
 *
 * libStencilEmulation.so is called by code that `stencil-gpu-emulate` built
 * with `profile` or `race-check`: the emulated kernels report every global
 * and shared memory access of their threads, their barriers and the ends of
 * their blocks. It keeps
 *
 *   - shadow state for the race check: two different threads of one block
 *     touching one element between two barriers, one of them writing, is
 *     a race, reported on stderr with the kernel (launch location), the
 *     element (memref and indices) and the two accesses (thread ids, load or
 *     store, op location); then the process aborts
 *     (stencilEmuSetRaceAbort(0): it goes on and counts the races);
 *   - the memory traffic of each kernel (launch site), as a GPU would see
 *     it: requests per warp (32 consecutive linear thread ids, x fastest;
 *     the k-th execution of one load/store op by the threads of a warp
 *     between two barriers is one request), the 32-byte sectors of global
 *     requests, shared-memory bank-conflict replays (32 banks of 4 bytes),
 *     the distinct global bytes each launch reads and writes, barriers,
 *     launches, blocks and updates (stores marked `stencil.update`);
 *     and modeled instructions: per thread, and per warp (the k-th
 *     execution of a block of the kernel by the threads of a warp between
 *     two barriers is issued once, as SIMT issue does under divergence).
 *
 * The blocks must run one after the other (the pass does so when it
 * instruments); the state is global to the process.
 *
 *===------------------------------------------------------------------------===*/

#ifndef STENCIL_RUNTIME_EMULATIONRUNTIME_H
#define STENCIL_RUNTIME_EMULATIONRUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Modes of a launch (stencilEmuLaunchBegin). */
#define STENCIL_EMU_PROFILE 1
#define STENCIL_EMU_RACE_CHECK 2

/* Called by the instrumented code. `site` is the launch site's table, a
 * string the pass writes: a first line "<kernel name>\t<location>", then a
 * line per instrumented op (its id is its line number, from 0):
 * "<load|store>\t<global|shared>\t<bytes>\t<update 0|1>\t<rank>\t<memref>\t
 * <location>"; with the profile, then a line per block of the kernel body
 * that reports its instructions (ids from 0 again): "instructions\t<modeled
 * instructions of one execution>\t<location>\t<the op holding the block>". */
void stencilEmuLaunchBegin(const char *site, int64_t mode, int64_t gridX,
                           int64_t gridY, int64_t gridZ, int64_t blockX,
                           int64_t blockY, int64_t blockZ);
void stencilEmuLaunchEnd(void);
void stencilEmuBlockBegin(int64_t x, int64_t y, int64_t z);
void stencilEmuBlockEnd(void);
void stencilEmuBarrier(void);
/* An access of op `op` by the thread of linear id `thread` (x fastest) to
 * `address`, at indices i0..i3 (the first four). */
void stencilEmuAccess(int64_t op, int64_t address, int64_t thread, int64_t i0,
                      int64_t i1, int64_t i2, int64_t i3);
/* One execution of block `block` (an "instructions" line of the table) by
 * the thread of linear id `thread`. */
void stencilEmuInstructions(int64_t block, int64_t thread);

/* For callers. */
/* Forget all counters and races. */
void stencilEmuReset(void);
/* The counters, as JSON: {"kernels": [{"kernel": ..., ...}, ...],
 * "total": {...}, "locations": {kernel: location}, "blocks": {kernel:
 * [{"location", "op", "instructions", "thread_executions", "warp_issues"},
 * ...]}} ("blocks": the instructions per block of the kernel body, with the
 * profile). Valid until the next call. */
const char *stencilEmuProfileJson(void);
/* Abort at the first race (default 1) or go on counting (0). */
void stencilEmuSetRaceAbort(int abortOnRace);
int64_t stencilEmuRaceCount(void);
/* The report of the first race since the last reset ("" if none). */
const char *stencilEmuRaceReport(void);

#ifdef __cplusplus
}
#endif

#endif /* STENCIL_RUNTIME_EMULATIONRUNTIME_H */
