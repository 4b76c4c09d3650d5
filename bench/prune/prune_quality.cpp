//===- prune_quality.cpp - magnitude kept by each pruning method ---------===//
//
// Quality benchmark of the pruning methods of runtime/format/StcPrune.h (not
// a speed benchmark): for each matrix it reports the magnitude kept by plain
// 2:4 strip pruning, by transposable 4x4 tile pruning, and by strip pruning
// after the channel permutation search, with the search's recovered fraction,
// its efficacy (Apex ASP's metric), time and rounds.
//
// Built and run by bench/run_prune_bench.sh (g++ -O2, against StcFormat.cpp,
// StcPrune.cpp, StcPermutationSearch.cpp and Npy.cpp; not part of the CMake
// build):
//
//   prune_quality JOBS.tsv > RESULTS.json
//
// Each line of JOBS.tsv is: name <TAB> path.npy <TAB> source <TAB> maxRounds
// <TAB> timeBudgetSeconds <TAB> searchSeed.  The .npy holds a 2-D float
// array rows x K (K, the reduction dimension, along axis 1, as an nn.Linear
// weight [out, in]); magnitudes are |w|.  The output is a JSON array, one
// object per job.  Exit status: 0 on success, 1 if a job failed (its object
// has an "error"), 2 on a usage error.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/StcPrune.h"
#include "runtime/npy/Npy.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace stc::format;

namespace {

struct Job {
  std::string name, path, source;
  int maxRounds = 0;
  double budgetSeconds = 0;
  uint64_t seed = 0;
};

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// A JSON number (non-finite values, which JSON lacks, become null).
std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t)
      .count();
}

/// Kept magnitude of strip pruning after permuting the columns, measured
/// independently of the search (permute, prune with StcFormat's `prune`,
/// sum), as a cross-check of what the search reports.
double keptAfterPermutedPrune(const std::vector<float> &w, int64_t rows,
                              int64_t cols, const std::vector<int64_t> &perm) {
  std::vector<float> permuted(w.size()), pruned(w.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      permuted[size_t(r * cols + c)] = w[size_t(r * cols + perm[size_t(c)])];
  prune<float>(View2D<const float>::rowMajor(permuted.data(), rows, cols),
               View2D<float>::rowMajor(pruned.data(), rows, cols), kPattern24,
               magnitudeF32);
  double kept = 0;
  for (float x : pruned)
    kept += std::fabs(double(x));
  return kept;
}

/// Runs one job; returns its JSON object (with "error" on failure).
std::string runJob(const Job &job, bool &ok) {
  std::ostringstream json;
  json << "{\"name\": " << jsonString(job.name)
       << ", \"path\": " << jsonString(job.path)
       << ", \"source\": " << jsonString(job.source);
  stc::npy::Array array;
  std::string error;
  std::vector<float> w;
  if (!stc::npy::readNpy(job.path, array, error) ||
      !stc::npy::convertToFloat32(array, w, error) || array.shape.size() != 2) {
    ok = false;
    if (error.empty())
      error = job.path + ": expected a 2-D array";
    json << ", \"error\": " << jsonString(error) << "}";
    return json.str();
  }
  const int64_t rows = array.shape[0], cols = array.shape[1];
  std::vector<float> mags(w.size());
  for (size_t i = 0; i < w.size(); ++i)
    mags[i] = std::fabs(w[i]);
  View2D<const float> magView =
      View2D<const float>::rowMajor(mags.data(), rows, cols);

  // Tile pruning of the weights themselves.
  std::vector<float> tiled(w.size());
  auto tileStart = std::chrono::steady_clock::now();
  bool tileOk = pruneTile<float>(
      View2D<const float>::rowMajor(w.data(), rows, cols),
      View2D<float>::rowMajor(tiled.data(), rows, cols), magnitudeF32);
  double tileSeconds = secondsSince(tileStart);
  double keptTile = 0;
  for (float x : tiled)
    keptTile += std::fabs(double(x));
  bool tileIs24Both =
      tileOk &&
      !checkPattern<float>(
          View2D<const float>::rowMajor(tiled.data(), rows, cols), kPattern24,
          magnitudeF32) &&
      !checkPattern<float>(
          View2D<const float>(tiled.data(), cols, rows, 1, cols), kPattern24,
          magnitudeF32);

  PermutationSearchOptions options;
  options.seed = job.seed;
  // The job's time budget column is no longer used: the search is bounded
  // by rounds of work only (docs/RELIABILITY.md).
  options.maxRounds = job.maxRounds;
  PermutationSearchResult r =
      searchChannelPermutation(magView, kPattern24, options);
  bool permValid = isPermutation(r.perm, cols);
  double keptCheck =
      permValid ? keptAfterPermutedPrune(w, rows, cols, r.perm) : NAN;
  bool keptConsistent = permValid && std::fabs(keptCheck - r.keptPermuted) <=
                                         1e-9 * std::max(1.0, r.totalMagnitude);
  ok = tileOk && tileIs24Both && permValid && keptConsistent &&
       r.keptPermuted >= r.keptIdentity;

  const double total = r.totalMagnitude;
  json << ", \"rows\": " << rows << ", \"cols\": " << cols
       << ", \"pattern\": \"2:4\""
       << ", \"total_magnitude\": " << jsonNumber(total)
       << ", \"kept_strip\": " << jsonNumber(r.keptIdentity)
       << ", \"kept_tile\": " << jsonNumber(keptTile)
       << ", \"kept_strip_perm\": " << jsonNumber(r.keptPermuted)
       << ", \"kept_row_bound\": " << jsonNumber(r.keptRowBound)
       << ", \"kept_ratio_strip\": " << jsonNumber(r.keptIdentity / total)
       << ", \"kept_ratio_tile\": " << jsonNumber(keptTile / total)
       << ", \"kept_ratio_strip_perm\": " << jsonNumber(r.keptPermuted / total)
       << ", \"kept_ratio_row_bound\": " << jsonNumber(r.keptRowBound / total)
       << ", \"recovered_fraction\": " << jsonNumber(r.recoveredFraction)
       << ", \"efficacy\": " << jsonNumber(r.efficacy)
       << ", \"search_seconds\": " << jsonNumber(r.seconds)
       << ", \"rounds\": " << r.rounds << ", \"max_rounds\": " << job.maxRounds
       << ", \"time_budget_s\": " << jsonNumber(job.budgetSeconds)
       << ", \"search_seed\": " << job.seed
       << ", \"tile_seconds\": " << jsonNumber(tileSeconds)
       << ", \"tile_is_24_both_dims\": " << (tileIs24Both ? "true" : "false")
       << ", \"perm_is_permutation\": " << (permValid ? "true" : "false")
       << ", \"kept_strip_perm_recomputed\": " << jsonNumber(keptCheck)
       << ", \"kept_consistent\": " << (keptConsistent ? "true" : "false")
       << "}";
  return json.str();
}

bool parseJobs(const std::string &path, std::vector<Job> &jobs) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "prune_quality: cannot read %s\n", path.c_str());
    return false;
  }
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t'))
      fields.push_back(field);
    if (fields.size() != 6) {
      std::fprintf(stderr, "prune_quality: %s:%d: expected 6 fields\n",
                   path.c_str(), lineNo);
      return false;
    }
    Job job;
    job.name = fields[0];
    job.path = fields[1];
    job.source = fields[2];
    job.maxRounds = std::stoi(fields[3]);
    job.budgetSeconds = std::stod(fields[4]);
    job.seed = std::stoull(fields[5]);
    jobs.push_back(job);
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: prune_quality JOBS.tsv > RESULTS.json\n");
    return 2;
  }
  std::vector<Job> jobs;
  if (!parseJobs(argv[1], jobs))
    return 2;
  bool allOk = true;
  std::printf("[\n");
  for (size_t i = 0; i < jobs.size(); ++i) {
    std::fprintf(stderr, "[prune_quality] %s\n", jobs[i].name.c_str());
    bool ok = true;
    std::string json = runJob(jobs[i], ok);
    allOk &= ok;
    std::printf("  %s%s\n", json.c_str(), i + 1 < jobs.size() ? "," : "");
    std::fflush(stdout);
  }
  std::printf("]\n");
  return allOk ? 0 : 1;
}
