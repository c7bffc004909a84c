//===- EmulationRuntime.cpp - counters and race checks of the GPU emulation -===//
//
// The state behind Stencil/Runtime/EmulationRuntime.h. Accesses arrive one
// thread after the other within each barrier interval (the emulation runs
// the threads of a block in loops between barriers), so a request of a warp
// is only complete at the end of the interval: the interval's accesses are
// kept and grouped there by (op, warp, k-th execution of the op by the
// thread). The race check keeps, per element touched in the interval, its
// writer and up to two readers.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Runtime/EmulationRuntime.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

struct OpInfo {
  bool store = false, shared = false, update = false;
  unsigned bytes = 0, rank = 0;
  std::string memref, location;
};

struct Site {
  std::string kernel, location;
  std::vector<OpInfo> ops;
  // Modeled instructions of one execution of each instrumented block, its
  // location, the op holding it and the statements whose code it holds.
  std::vector<uint64_t> blockInstructions;
  std::vector<std::string> blockLocations, blockOps, blockStatements;
  uint64_t staticInstructions = 0;
  // Bytes of workgroup memory per block.
  uint64_t sharedBytes = 0;
};

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    std::string::size_type end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      return parts;
    start = end + 1;
  }
}

Site parseSite(const char *table) {
  Site site;
  std::vector<std::string> lines = split(table, '\n');
  std::vector<std::string> head = split(lines[0], '\t');
  site.kernel = head[0];
  site.location = head.size() > 1 ? head[1] : "";
  site.sharedBytes =
      head.size() > 2 ? std::strtoull(head[2].c_str(), nullptr, 10) : 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty())
      continue;
    std::vector<std::string> f = split(lines[i], '\t');
    if (f[0] == "instructions" && f.size() >= 2) {
      uint64_t weight = std::strtoull(f[1].c_str(), nullptr, 10);
      site.blockInstructions.push_back(weight);
      site.blockLocations.push_back(f.size() > 2 ? f[2] : "");
      site.blockOps.push_back(f.size() > 3 ? f[3] : "");
      site.blockStatements.push_back(f.size() > 4 ? f[4] : "");
      site.staticInstructions += weight;
      continue;
    }
    OpInfo op;
    if (f.size() >= 7) {
      op.store = f[0] == "store";
      op.shared = f[1] == "shared";
      op.bytes = std::strtoul(f[2].c_str(), nullptr, 10);
      op.update = f[3] == "1";
      op.rank = std::strtoul(f[4].c_str(), nullptr, 10);
      op.memref = f[5];
      op.location = f[6];
    }
    site.ops.push_back(op);
  }
  return site;
}

struct Counters {
  uint64_t launches = 0, blocks = 0, threadsPerBlock = 0, updates = 0,
           sharedBytesPerBlock = 0;
  uint64_t globalLoadRequests = 0, globalLoadSectors = 0,
           globalLoadBytesRequested = 0;
  uint64_t globalStoreRequests = 0, globalStoreSectors = 0,
           globalStoreBytesRequested = 0;
  uint64_t sharedLoadRequests = 0, sharedStoreRequests = 0,
           sharedBankConflicts = 0;
  uint64_t globalBytesRead = 0, globalBytesWritten = 0, barriers = 0;
  // Barrier intervals of a block (summed over blocks) that issue a global
  // load: each puts a memory latency on the block's path to its barrier.
  uint64_t globalLoadIntervals = 0;
  // Modeled instructions executed, and in the kernel's code (the sum over
  // kernels in a total).
  uint64_t threadInstructions = 0, warpInstructions = 0,
           staticInstructions = 0;

  void add(const Counters &o) {
    launches += o.launches;
    blocks += o.blocks;
    threadsPerBlock = std::max(threadsPerBlock, o.threadsPerBlock);
    sharedBytesPerBlock = std::max(sharedBytesPerBlock, o.sharedBytesPerBlock);
    updates += o.updates;
    globalLoadRequests += o.globalLoadRequests;
    globalLoadSectors += o.globalLoadSectors;
    globalLoadBytesRequested += o.globalLoadBytesRequested;
    globalStoreRequests += o.globalStoreRequests;
    globalStoreSectors += o.globalStoreSectors;
    globalStoreBytesRequested += o.globalStoreBytesRequested;
    sharedLoadRequests += o.sharedLoadRequests;
    sharedStoreRequests += o.sharedStoreRequests;
    sharedBankConflicts += o.sharedBankConflicts;
    globalBytesRead += o.globalBytesRead;
    globalBytesWritten += o.globalBytesWritten;
    barriers += o.barriers;
    globalLoadIntervals += o.globalLoadIntervals;
    threadInstructions += o.threadInstructions;
    warpInstructions += o.warpInstructions;
    staticInstructions += o.staticInstructions;
  }
};

struct Access {
  uint32_t op;
  uint64_t warp, k, address;
};

struct Shadow {
  int64_t writer = -1, readers[2] = {-1, -1};
  int64_t writerOp = 0, readerOps[2] = {0, 0};
};

struct State {
  std::unordered_map<const char *, Site> sites;
  // Counters per launch site, in the order of their first launch.
  std::vector<std::pair<const char *, Counters>> counters;
  // Per launch site, per block: executions by threads and issues by warps.
  std::unordered_map<const char *, std::vector<std::pair<uint64_t, uint64_t>>>
      blockCounts;
  std::unordered_map<const char *, size_t> counterIndex;

  // The launch running now.
  const char *table = nullptr;
  Site *site = nullptr;
  Counters *current = nullptr;
  std::vector<std::pair<uint64_t, uint64_t>> *currentBlocks = nullptr;
  int64_t mode = 0, blockDim[3] = {1, 1, 1}, blockId[3] = {0, 0, 0};
  std::vector<Access> interval;
  std::unordered_map<uint64_t, uint64_t> executions; // (thread, op) -> count
  // (thread, block) -> executions, and the (block, warp, k) issued, in the
  // interval.
  std::unordered_map<uint64_t, uint64_t> blockExecutions;
  std::unordered_set<uint64_t> issued;
  std::unordered_map<uint64_t, Shadow> shadow;
  std::unordered_map<uint64_t, bool> read, written; // distinct elements

  bool abortOnRace = true;
  int64_t races = 0;
  std::string firstRace, json;
};

State &state() {
  static State s;
  return s;
}

std::string threadName(int64_t thread) {
  State &s = state();
  char text[96];
  std::snprintf(text, sizeof(text), "(%" PRId64 ", %" PRId64 ", %" PRId64 ")",
                thread % s.blockDim[0], thread / s.blockDim[0] % s.blockDim[1],
                thread / (s.blockDim[0] * s.blockDim[1]));
  return text;
}

std::string accessName(int64_t op, int64_t thread) {
  const OpInfo &info = state().site->ops[op];
  return std::string(info.store ? "store" : "load") + " by thread " +
         threadName(thread) + " at " + info.location;
}

void reportRace(int64_t op, int64_t thread, int64_t otherOp,
                int64_t otherThread, uint64_t address, const int64_t *indices) {
  State &s = state();
  ++s.races;
  if (!s.firstRace.empty() && !s.abortOnRace)
    return;
  const OpInfo &info = s.site->ops[op];
  std::ostringstream out;
  out << "stencil-gpu-emulate: data race in kernel " << s.site->kernel << " ("
      << s.site->location << "), block (" << s.blockId[0] << ", "
      << s.blockId[1] << ", " << s.blockId[2] << "):\n  element [";
  for (unsigned d = 0; d < std::min(info.rank, 4u); ++d)
    out << (d ? ", " : "") << indices[d];
  if (info.rank > 4)
    out << ", ...";
  char where[32];
  std::snprintf(where, sizeof(where), "%#" PRIx64, address);
  out << "] of " << info.memref << " (address " << where
      << ") is touched by two threads with no barrier between:\n  "
      << accessName(otherOp, otherThread) << "\n  " << accessName(op, thread)
      << "\n";
  s.firstRace = out.str();
  if (s.abortOnRace) {
    std::fputs(s.firstRace.c_str(), stderr);
    std::fflush(stderr);
    std::abort();
  }
}

void checkRace(int64_t op, uint64_t address, int64_t thread,
               const int64_t *indices) {
  State &s = state();
  Shadow &e = s.shadow[address];
  bool store = s.site->ops[op].store;
  if (e.writer >= 0 && e.writer != thread) {
    reportRace(op, thread, e.writerOp, e.writer, address, indices);
  } else if (store) {
    for (int r = 0; r < 2; ++r)
      if (e.readers[r] >= 0 && e.readers[r] != thread) {
        reportRace(op, thread, e.readerOps[r], e.readers[r], address,
                   indices);
        break;
      }
  }
  if (store) {
    e.writer = thread;
    e.writerOp = op;
  } else if (e.readers[0] < 0) {
    e.readers[0] = thread;
    e.readerOps[0] = op;
  } else if (e.readers[0] != thread && e.readers[1] < 0) {
    e.readers[1] = thread;
    e.readerOps[1] = op;
  }
}

/// Groups the interval's accesses into requests: the k-th execution of an
/// op by the threads of a warp.
void countRequests() {
  State &s = state();
  std::vector<Access> &all = s.interval;
  std::sort(all.begin(), all.end(), [](const Access &a, const Access &b) {
    return std::tie(a.op, a.warp, a.k, a.address) <
           std::tie(b.op, b.warp, b.k, b.address);
  });
  Counters &c = *s.current;
  bool globalLoad = false;
  std::vector<uint64_t> units;
  for (size_t first = 0; first < all.size();) {
    size_t end = first + 1;
    while (end < all.size() && all[end].op == all[first].op &&
           all[end].warp == all[first].warp && all[end].k == all[first].k)
      ++end;
    const OpInfo &info = s.site->ops[all[first].op];
    uint64_t bytes = std::max(info.bytes, 1u);
    units.clear();
    if (!info.shared) {
      // The 32-byte sectors the request touches.
      for (size_t i = first; i < end; ++i)
        for (uint64_t sector = all[i].address / 32;
             sector <= (all[i].address + bytes - 1) / 32; ++sector)
          units.push_back(sector);
      std::sort(units.begin(), units.end());
      uint64_t sectors =
          std::unique(units.begin(), units.end()) - units.begin();
      uint64_t requested = bytes * (end - first);
      if (info.store) {
        ++c.globalStoreRequests;
        c.globalStoreSectors += sectors;
        c.globalStoreBytesRequested += requested;
      } else {
        globalLoad = true;
        ++c.globalLoadRequests;
        c.globalLoadSectors += sectors;
        c.globalLoadBytesRequested += requested;
      }
    } else {
      // Distinct 4-byte words per bank: the most in one bank is the number
      // of passes the request needs.
      for (size_t i = first; i < end; ++i)
        for (uint64_t word = all[i].address / 4;
             word <= (all[i].address + bytes - 1) / 4; ++word)
          units.push_back(word);
      std::sort(units.begin(), units.end());
      units.erase(std::unique(units.begin(), units.end()), units.end());
      unsigned perBank[32] = {0};
      unsigned most = 0;
      for (uint64_t word : units)
        most = std::max(most, ++perBank[word % 32]);
      ++(info.store ? c.sharedStoreRequests : c.sharedLoadRequests);
      c.sharedBankConflicts += most ? most - 1 : 0;
    }
    first = end;
  }
  c.globalLoadIntervals += globalLoad;
  all.clear();
}

/// The end of a barrier interval of the current block.
void endInterval() {
  State &s = state();
  if (s.mode & STENCIL_EMU_PROFILE)
    countRequests();
  s.executions.clear();
  s.blockExecutions.clear();
  s.issued.clear();
  s.shadow.clear();
}

std::string escaped(const std::string &text) {
  std::string out;
  for (char ch : text) {
    if (ch == '"' || ch == '\\')
      out += '\\';
    if (static_cast<unsigned char>(ch) >= 0x20)
      out += ch;
  }
  return out;
}

void appendJson(std::string &out, const std::string &kernel,
                const Counters &c) {
  char text[2048];
  std::snprintf(
      text, sizeof(text),
      "\"launches\": %" PRIu64 ", \"blocks\": %" PRIu64
      ", \"threads_per_block\": %" PRIu64
      ", \"shared_bytes_per_block\": %" PRIu64 ", \"updates\": %" PRIu64
      ", \"global_load_requests\": %" PRIu64
      ", \"global_load_sectors\": %" PRIu64
      ", \"global_load_bytes_requested\": %" PRIu64
      ", \"global_store_requests\": %" PRIu64
      ", \"global_store_sectors\": %" PRIu64
      ", \"global_store_bytes_requested\": %" PRIu64
      ", \"shared_load_requests\": %" PRIu64
      ", \"shared_store_requests\": %" PRIu64
      ", \"shared_bank_conflicts\": %" PRIu64
      ", \"global_bytes_read\": %" PRIu64 ", \"global_bytes_written\": %" PRIu64
      ", \"barriers\": %" PRIu64 ", \"global_load_intervals\": %" PRIu64
      ", \"thread_instructions\": %" PRIu64 ", \"warp_instructions\": %" PRIu64
      ", \"static_instructions\": %" PRIu64 "}",
      c.launches, c.blocks, c.threadsPerBlock, c.sharedBytesPerBlock, c.updates,
      c.globalLoadRequests, c.globalLoadSectors, c.globalLoadBytesRequested,
      c.globalStoreRequests, c.globalStoreSectors, c.globalStoreBytesRequested,
      c.sharedLoadRequests, c.sharedStoreRequests, c.sharedBankConflicts,
      c.globalBytesRead, c.globalBytesWritten, c.barriers,
      c.globalLoadIntervals, c.threadInstructions, c.warpInstructions,
      c.staticInstructions);
  out += "{\"kernel\": \"" + escaped(kernel) + "\", " + text;
}

} // namespace

extern "C" {

void stencilEmuLaunchBegin(const char *table, int64_t mode, int64_t gridX,
                           int64_t gridY, int64_t gridZ, int64_t blockX,
                           int64_t blockY, int64_t blockZ) {
  State &s = state();
  auto [it, isNew] = s.sites.try_emplace(table);
  if (isNew)
    it->second = parseSite(table);
  auto [index, firstLaunch] =
      s.counterIndex.try_emplace(table, s.counters.size());
  if (firstLaunch)
    s.counters.emplace_back(table, Counters());
  s.table = table;
  s.site = &it->second;
  s.current = &s.counters[index->second].second;
  s.currentBlocks = &s.blockCounts[table];
  s.currentBlocks->resize(s.site->blockInstructions.size());
  s.mode = mode;
  s.blockDim[0] = blockX;
  s.blockDim[1] = blockY;
  s.blockDim[2] = blockZ;
  if (mode & STENCIL_EMU_PROFILE) {
    ++s.current->launches;
    s.current->threadsPerBlock = blockX * blockY * blockZ;
    s.current->sharedBytesPerBlock = s.site->sharedBytes;
    s.current->staticInstructions = s.site->staticInstructions;
  }
  (void)gridX, (void)gridY, (void)gridZ;
}

void stencilEmuLaunchEnd(void) {
  State &s = state();
  s.read.clear();
  s.written.clear();
  s.site = nullptr;
  s.current = nullptr;
}

void stencilEmuBlockBegin(int64_t x, int64_t y, int64_t z) {
  State &s = state();
  s.blockId[0] = x;
  s.blockId[1] = y;
  s.blockId[2] = z;
  if (s.mode & STENCIL_EMU_PROFILE)
    ++s.current->blocks;
}

void stencilEmuBlockEnd(void) { endInterval(); }

void stencilEmuBarrier(void) {
  State &s = state();
  endInterval();
  if (s.mode & STENCIL_EMU_PROFILE)
    ++s.current->barriers;
}

void stencilEmuAccess(int64_t op, int64_t address, int64_t thread, int64_t i0,
                      int64_t i1, int64_t i2, int64_t i3) {
  State &s = state();
  const OpInfo &info = s.site->ops[op];
  uint64_t where = static_cast<uint64_t>(address);
  if (s.mode & STENCIL_EMU_RACE_CHECK) {
    int64_t indices[4] = {i0, i1, i2, i3};
    checkRace(op, where, thread, indices);
  }
  if (!(s.mode & STENCIL_EMU_PROFILE))
    return;
  Counters &c = *s.current;
  if (info.store && info.update)
    ++c.updates;
  if (!info.shared) {
    auto &seen = info.store ? s.written : s.read;
    if (seen.emplace(where, true).second)
      (info.store ? c.globalBytesWritten : c.globalBytesRead) += info.bytes;
  }
  uint64_t k = s.executions[static_cast<uint64_t>(thread) * s.site->ops.size() +
                            static_cast<uint64_t>(op)]++;
  s.interval.push_back(
      {static_cast<uint32_t>(op), static_cast<uint64_t>(thread) / 32, k, where});
}

void stencilEmuInstructions(int64_t block, int64_t thread) {
  State &s = state();
  if (!(s.mode & STENCIL_EMU_PROFILE))
    return;
  const std::vector<uint64_t> &weights = s.site->blockInstructions;
  uint64_t weight = weights[block];
  Counters &c = *s.current;
  c.threadInstructions += weight;
  std::vector<std::pair<uint64_t, uint64_t>> &counts = *s.currentBlocks;
  ++counts[block].first;
  uint64_t k = s.blockExecutions[static_cast<uint64_t>(thread) * weights.size() +
                                 static_cast<uint64_t>(block)]++;
  // A warp issues a block's k-th execution once, whichever of its threads
  // run it: (block, warp, k) packed into one key.
  uint64_t key = (static_cast<uint64_t>(block) << 48) ^
                 (static_cast<uint64_t>(thread / 32) << 32) ^ k;
  if (s.issued.insert(key).second) {
    c.warpInstructions += weight;
    ++counts[block].second;
  }
}

void stencilEmuReset(void) {
  State &s = state();
  s.counters.clear();
  s.counterIndex.clear();
  s.blockCounts.clear();
  s.races = 0;
  s.firstRace.clear();
}

const char *stencilEmuProfileJson(void) {
  State &s = state();
  std::string &out = s.json;
  out = "{\"kernels\": [";
  Counters total;
  for (size_t i = 0; i < s.counters.size(); ++i) {
    if (i)
      out += ", ";
    appendJson(out, s.sites[s.counters[i].first].kernel,
               s.counters[i].second);
    total.add(s.counters[i].second);
  }
  out += "], \"total\": ";
  appendJson(out, "total", total);
  out += ", \"locations\": {";
  for (size_t i = 0; i < s.counters.size(); ++i) {
    const Site &site = s.sites[s.counters[i].first];
    out += (i ? ", \"" : "\"") + escaped(site.kernel) + "\": \"" +
           escaped(site.location) + "\"";
  }
  out += "}, \"blocks\": {";
  for (size_t i = 0; i < s.counters.size(); ++i) {
    const Site &site = s.sites[s.counters[i].first];
    const auto &counts = s.blockCounts[s.counters[i].first];
    out += (i ? ", \"" : "\"") + escaped(site.kernel) + "\": [";
    for (size_t b = 0; b < site.blockInstructions.size(); ++b) {
      std::pair<uint64_t, uint64_t> n =
          b < counts.size() ? counts[b] : std::pair<uint64_t, uint64_t>();
      out += std::string(b ? ", " : "") + "{\"location\": \"" +
             escaped(site.blockLocations[b]) + "\", \"op\": \"" +
             escaped(site.blockOps[b]) + "\", \"statements\": \"" +
             escaped(site.blockStatements[b]) + "\", \"instructions\": " +
             std::to_string(site.blockInstructions[b]) +
             ", \"thread_executions\": " + std::to_string(n.first) +
             ", \"warp_issues\": " + std::to_string(n.second) + "}";
    }
    out += "]";
  }
  out += "}}";
  return out.c_str();
}

void stencilEmuSetRaceAbort(int abortOnRace) {
  state().abortOnRace = abortOnRace != 0;
}

int64_t stencilEmuRaceCount(void) { return state().races; }

const char *stencilEmuRaceReport(void) { return state().firstRace.c_str(); }

} // extern "C"
