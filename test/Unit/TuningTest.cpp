//===- TuningTest.cpp - the tuning database and the cost model ------------===//
//
// passes/Tuning/: reading databases (every malformed form refused with the
// entry and the reason; a later file replacing an entry of the same key;
// the device choice), and the cost model on synthetic data: roofline terms
// worked out by hand, efficiencies recovered exactly from samples of a
// known efficiency, nearest neighbours preferred, priors without data, and
// leave-one-out error that is zero for a consistent family and large for
// an inconsistent one.
//
//===----------------------------------------------------------------------===//
#include "passes/Tuning/CostModel.h"
#include "passes/Tuning/TuningDb.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

using namespace mlir::stc::tuning;

namespace {

const char *kConfig = "#stc_gpu.kernel_config<arch = sm_90a, family = wgmma, "
                      "block_rows = 128, block_cols = 256, stages = 4>";

std::string entryJson(const std::string &device, int64_t m, double us,
                      const std::string &arch = "sm_90a",
                      const std::string &cc = "9.0") {
  return R"({"key": {"device": ")" + device + R"(", "cc": ")" + cc +
         R"(", "arch": ")" + arch + R"(", "op": "matmul", "m": )" +
         std::to_string(m) +
         R"(, "n": 4096, "k": 4096, "batch": 1, "dtype": "f16", "out": "f16",
          "epilogue": "none"},
  "best": {"sparse": true, "median_us": )" +
         std::to_string(us) + R"(, "config": ")" + kConfig + R"("},
  "candidates": [{"sparse": true, "median_us": )" +
         std::to_string(us) + R"(, "config": ")" + kConfig + R"("},
                 {"sparse": false, "status": "wrong", "config": ")" +
         kConfig + R"("}]})";
}

std::string dbJson(const std::string &entries) {
  return R"({"stc_tuning_db": 1, "entries": [)" + entries + "]}";
}

TEST(TuningDb, ReadsEntriesAndFindsThemByProblem) {
  TuningDb db;
  ASSERT_FALSE(db.add(dbJson(entryJson("NVIDIA H200", 4096, 200.5) + "," +
                             entryJson("NVIDIA H200", 8192, 400.0)),
                      "a.json"));
  ASSERT_EQ(db.entries().size(), 2u);
  const TuningEntry &e = db.entries()[0];
  EXPECT_EQ(e.key.device, "NVIDIA H200");
  EXPECT_EQ(e.key.m, 4096);
  EXPECT_TRUE(e.best.sparse);
  EXPECT_DOUBLE_EQ(e.best.medianUs, 200.5);
  ASSERT_EQ(e.candidates.size(), 2u);
  EXPECT_EQ(e.candidates[1].status, "wrong");
  EXPECT_EQ(e.origin, "a.json entry 0");

  TuningKey key = e.key;
  key.device = "";
  key.m = 8192;
  const TuningEntry *hit = db.find("NVIDIA H200", key);
  ASSERT_TRUE(hit);
  EXPECT_DOUBLE_EQ(hit->best.medianUs, 400.0);
  key.epilogue = "bias";
  EXPECT_FALSE(db.find("NVIDIA H200", key));
  key.epilogue = "none";
  EXPECT_FALSE(db.find("NVIDIA H100", key));
}

TEST(TuningDb, ALaterFileReplacesTheSameKey) {
  TuningDb db;
  ASSERT_FALSE(db.add(dbJson(entryJson("NVIDIA H200", 4096, 200)), "a"));
  ASSERT_FALSE(db.add(dbJson(entryJson("NVIDIA H200", 4096, 150) + "," +
                             entryJson("NVIDIA H100", 4096, 250)),
                      "b"));
  ASSERT_EQ(db.entries().size(), 2u);
  EXPECT_DOUBLE_EQ(db.entries()[0].best.medianUs, 150);
  EXPECT_EQ(db.entries()[0].origin, "b entry 0");
}

TEST(TuningDb, ChoosesTheDeviceWithMostEntriesOrTheOneAskedFor) {
  TuningDb db;
  ASSERT_FALSE(
      db.add(dbJson(entryJson("NVIDIA H100", 1024, 10) + "," +
                    entryJson("NVIDIA H200", 1024, 10) + "," +
                    entryJson("NVIDIA H200", 2048, 10) + "," +
                    entryJson("NVIDIA A100", 1024, 10, "sm_80", "8.0")),
             "a"));
  EXPECT_EQ(db.chooseDevice("9.0", "sm_90a"), "NVIDIA H200");
  EXPECT_EQ(db.chooseDevice("9.0", "sm_90a", "NVIDIA H100"), "NVIDIA H100");
  EXPECT_EQ(db.chooseDevice("9.0", "sm_90a", "NVIDIA A100"), "");
  EXPECT_EQ(db.chooseDevice("9.0", "sm_90"), "");
  EXPECT_EQ(db.chooseDevice("8.0", "sm_80"), "NVIDIA A100");
  EXPECT_EQ(db.entriesFor("NVIDIA H200", "sm_90a").size(), 2u);
  EXPECT_EQ(db.describeDevices(),
            "sm_80 on cc 8.0 (NVIDIA A100), sm_90a on cc 9.0 (NVIDIA H100)");
}

TEST(TuningDb, RefusesMalformedFilesWithTheEntryAndTheReason) {
  auto error = [](const std::string &text) {
    TuningDb db;
    std::optional<std::string> e = db.add(text, "x.json");
    EXPECT_TRUE(db.entries().empty());
    return e.value_or("(accepted)");
  };
  EXPECT_NE(error("{").find("tuning database x.json: not JSON"),
            std::string::npos);
  EXPECT_EQ(error("[]"), "tuning database x.json: not a JSON object");
  EXPECT_EQ(error(R"({"entries": []})"),
            "tuning database x.json: no \"stc_tuning_db\": 1 (not a tuning "
            "database)");
  EXPECT_EQ(error(R"({"stc_tuning_db": 2, "entries": []})"),
            "tuning database x.json: version 2; this compiler reads version 1");
  EXPECT_EQ(error(R"({"stc_tuning_db": 1})"),
            "tuning database x.json: no \"entries\" array");
  EXPECT_EQ(error(dbJson("3")),
            "tuning database x.json: entry 0: not an object");
  std::string good = entryJson("D", 64, 1);
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string text = good;
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    return dbJson(good + "," + text);
  };
  EXPECT_EQ(error(replaced(R"("m": 64)", R"("m": -1)")),
            "tuning database x.json: entry 1: key has no integer \"m\" in "
            "1..2^31");
  EXPECT_EQ(error(replaced(R"("n": 4096)", R"("n": 4294967296)")),
            "tuning database x.json: entry 1: key has no integer \"n\" in "
            "1..2^31");
  EXPECT_EQ(error(replaced(R"("dtype": "f16")", R"("dtype": 5)")),
            "tuning database x.json: entry 1: key has no string \"dtype\"");
  EXPECT_EQ(error(replaced(R"("op": "matmul")", R"("op": "conv")")),
            "tuning database x.json: entry 1: key op \"conv\" has no \"conv\" "
            "object");
  EXPECT_EQ(error(replaced(R"("op": "matmul")", R"("op": "attention")")),
            "tuning database x.json: entry 1: key op \"attention\" is not "
            "tuned (expected matmul or conv)");
  EXPECT_EQ(error(replaced(R"("best": {"sparse": true, "median_us": 1.000000)",
                           R"("best": {"sparse": true, "median_us": 0)")),
            "tuning database x.json: entry 1: best has no positive "
            "\"median_us\"");
  EXPECT_EQ(error(replaced(R"("status": "wrong")", R"("status": "maybe")")),
            "tuning database x.json: entry 1: candidates[1] has unknown "
            "status \"maybe\"");
  EXPECT_EQ(error(replaced(R"("config": "#stc_gpu)", R"("config": "#gpu)")),
            "tuning database x.json: entry 1: best has no \"config\" "
            "(#stc_gpu.kernel_config<...>)");
  EXPECT_EQ(error(dbJson(R"({"key": {}})")),
            "tuning database x.json: entry 0: key has no string \"device\"");
}

TEST(TuningDb, ConvolutionKeysHoldTheirGeometry) {
  auto conv = [](const std::string &geometry) {
    return dbJson(
        R"({"key": {"device": "D", "cc": "9.0", "arch": "sm_90a",
          "op": "conv", "m": 64, "n": 128, "k": 576, "batch": 1,
          "dtype": "f16", "out": "f16", "epilogue": "none", )" +
        geometry + R"(}, "best": {"sparse": true, "median_us": 7.5,
          "config": "#stc_gpu.kernel_config<...>"}})");
  };
  std::string good = R"("conv": {"n": 2, "h": 8, "w": 8, "c": 64, "f": 64,
      "kh": 3, "kw": 3, "stride": [1, 2], "pad": [1, 1, 0, 0],
      "dilation": [1, 1], "groups": 1})";
  TuningDb db;
  ASSERT_FALSE(db.add(conv(good), "c.json"));
  const TuningKey &key = db.entries()[0].key;
  ASSERT_TRUE(key.conv);
  EXPECT_EQ(key.conv->strideW, 2);
  EXPECT_EQ(key.conv->padBottom, 0);
  EXPECT_EQ(key.str(), "conv 2x8x8x64 * 64x3x3 s1,2 p1,1,0,0 d1,1 g1 "
                       "f16->f16 none on sm_90a");
  // The geometry is part of the key: the same GEMM sizes with another
  // stride are another problem.
  TuningKey other = key;
  other.conv->strideW = 1;
  EXPECT_FALSE(db.find("D", other));
  EXPECT_TRUE(db.find("D", key));

  auto error = [&](const std::string &geometry) {
    TuningDb d;
    return d.add(conv(geometry), "c.json").value_or("(accepted)");
  };
  EXPECT_EQ(error(R"("x": 1)"), "tuning database c.json: entry 0: key op "
                                "\"conv\" has no \"conv\" object");
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return error(text);
  };
  EXPECT_EQ(replaced(R"("kh": 3)", R"("kh": 0)"),
            "tuning database c.json: entry 0: conv has no integer \"kh\" in "
            "1..2^31");
  EXPECT_EQ(replaced(R"("stride": [1, 2])", R"("stride": [1])"),
            "tuning database c.json: entry 0: conv has no \"stride\" [h, w] "
            "of integers >= 1");
  EXPECT_EQ(replaced(R"("pad": [1, 1, 0, 0])", R"("pad": [1, 1, 0, -1])"),
            "tuning database c.json: entry 0: conv has no \"pad\" [top, "
            "left, bottom, right] of integers >= 0");
  EXPECT_EQ(replaced(R"("dilation": [1, 1])", R"("dilation": "1")"),
            "tuning database c.json: entry 0: conv has no \"dilation\" [h, "
            "w] of integers >= 1");
  EXPECT_EQ(replaced(R"("groups": 1)", R"("groups": 3)"),
            "tuning database c.json: entry 0: conv's channels are not a "
            "multiple of its groups");
}

TEST(TuningDb, ComputeCapabilities) {
  EXPECT_EQ(computeCapabilityOf("sm_90a"), "9.0");
  EXPECT_EQ(computeCapabilityOf("sm_90"), "9.0");
  EXPECT_EQ(computeCapabilityOf("sm_86"), "8.6");
  EXPECT_EQ(computeCapabilityOf("cpu"), "");
}

TEST(TuningDb, TheCommittedDatabaseReads) {
  TuningDb db;
  EXPECT_FALSE(db.add(committedTuningDb(), "committed"));
}

DeviceModel testDevice() { return {"test", 100, 1000.0, 4.0, 2.0}; }

TEST(CostModel, RooflineTermsByHand) {
  CostModel model(testDevice());
  ModelKernel dense{false, "staged", 128, 128};
  // 1280 x 1280 x 4096: 100 tiles, one wave. A tile is 2*128*128*4096
  // flops at 10 TFLOP/s per SM (1e7 flops per us): 13.42 us. Bytes:
  // (2 * 1280*4096 + 1280*1280) * 2 = 24.25 MB at 4 TB/s = 6.06 us.
  ModelProblem pb{1280, 1280, 4096, 1, 2, 2, false, false};
  EXPECT_NEAR(model.rooflineUs(pb, dense), 2.0 * 128 * 128 * 4096 / 1e7, 1e-9);
  // One more row of tiles: two waves, twice the time.
  pb.m = 1281;
  EXPECT_NEAR(model.rooflineUs(pb, dense), 2 * 2.0 * 128 * 128 * 4096 / 1e7,
              1e-9);
  // Sparse: twice the rate.
  ModelKernel sparse{true, "wgmma", 128, 128};
  pb.m = 1280;
  EXPECT_NEAR(model.rooflineUs(pb, sparse), 2.0 * 128 * 128 * 4096 / 2e7, 1e-9);
  // A memory-bound decode shape: N = 16 in 128 x 16 tiles (32 of them,
  // one wave: 1.68 us of dense tensor-core time). A dense 4096 x 4096 f16
  // weight is 32 MiB; 2:4 halves it and adds 1/8 byte of metadata per
  // element.
  ModelKernel narrowDense{false, "staged", 128, 16};
  ModelKernel narrowSparse{true, "wgmma", 128, 16};
  ModelProblem decode{4096, 16, 4096, 1, 2, 2, false, false};
  double mk = 4096.0 * 4096;
  double b = 4096.0 * 16 * 2, c = 4096.0 * 16 * 2;
  EXPECT_NEAR(model.rooflineUs(decode, narrowDense), (mk * 2 + b + c) / 4e6,
              1e-9);
  EXPECT_NEAR(model.rooflineUs(decode, narrowSparse),
              (mk + mk / 8 + b + c) / 4e6, 1e-9);
  // The 128 x 128 tile computes 8x the columns it needs: compute-bound.
  EXPECT_NEAR(model.rooflineUs(decode, dense), 2.0 * 128 * 128 * 4096 / 1e7,
              1e-9);
  // i8 doubles the tensor-core rate (a 1-byte A, 4-byte result): here
  // memory-bound.
  pb.int8 = true;
  pb.inBytes = 1;
  pb.outBytes = 4;
  double i8Flop = 2.0 * 128 * 128 * 4096 / 4e7;
  double i8Bytes =
      (1280.0 * 4096 * (0.5 + 0.125) + 4096.0 * 1280 + 1280.0 * 1280 * 4) / 4e6;
  EXPECT_LT(i8Flop, i8Bytes);
  EXPECT_NEAR(model.rooflineUs(pb, sparse), i8Bytes, 1e-9);
}

TEST(CostModel, PriorsWithoutData) {
  CostModel model(testDevice());
  ModelProblem pb{4096, 4096, 4096, 1, 2, 2, false, false};
  ModelKernel wgmma{true, "wgmma", 128, 256};
  CostModel::Prediction p = model.predict(pb, wgmma);
  EXPECT_EQ(p.basis, "prior");
  EXPECT_NEAR(p.us, model.rooflineUs(pb, wgmma) / 0.33 + 2.0, 1e-9);
  EXPECT_DOUBLE_EQ(CostModel::priorEfficiency({false, "staged", 64, 64}), 0.25);
  EXPECT_DOUBLE_EQ(CostModel::priorEfficiency({true, "staged", 64, 64}), 0.15);
  EXPECT_DOUBLE_EQ(CostModel::priorEfficiency({true, "direct", 64, 64}), 0.03);
}

TEST(CostModel, APixelTileCountsTheTilesOfEachImage) {
  CostModel model(testDevice());
  // ResNet-50's l4 1x1 at batch 256: 256 images of 7 x 7 pixels.
  ModelProblem conv{2048, 256 * 49, 512};
  conv.images = 256;
  conv.outH = conv.outW = 7;
  ModelKernel flat{true, "wgmma", 128, 256};
  ModelKernel tiled = flat;
  tiled.pixelTileH = tiled.pixelTileW = 16;
  // 16 x 256 tiles of one image each (32 waves) instead of 16 x 49 (6).
  EXPECT_GT(model.rooflineUs(conv, tiled), 4.0 * model.rooflineUs(conv, flat));
  // 8 x 8 tiles of 64 columns: 49 of 64 pixels are real.
  ModelKernel small{true, "wgmma", 128, 64, "", 8, 8};
  EXPECT_LT(model.rooflineUs(conv, small), model.rooflineUs(conv, tiled) / 3);
  // Without the images (a GEMM, or a key without them) columns are flat.
  ModelProblem gemm = conv;
  gemm.images = 0;
  EXPECT_DOUBLE_EQ(model.rooflineUs(gemm, tiled), model.rooflineUs(gemm, flat));
}

TEST(CostModel, RecoversAKnownEfficiencyAndPrefersTheNearestSamples) {
  CostModel model(testDevice());
  ModelKernel k{true, "wgmma", 128, 256};
  auto measured = [&](ModelProblem pb, double efficiency) {
    return model.rooflineUs(pb, k) / efficiency + 2.0;
  };
  // Large shapes ran at 0.6, small ones at 0.2.
  int group = 0;
  for (int64_t s : {4096, 8192, 16384})
    model.addSample({s, s, s, 1, 2, 2, false, false}, k,
                    measured({s, s, s, 1, 2, 2, false, false}, 0.6), group++);
  for (int64_t s : {128, 256, 512})
    model.addSample({s, s, s, 1, 2, 2, false, false}, k,
                    measured({s, s, s, 1, 2, 2, false, false}, 0.2), group++);
  ModelProblem big{6000, 6000, 6000, 1, 2, 2, false, false};
  CostModel::Prediction p = model.predict(big, k);
  EXPECT_EQ(p.basis, "3 samples of sparse wgmma 128x256");
  EXPECT_NEAR(p.us, measured(big, 0.6), 1e-6 * p.us);
  ModelProblem small{300, 300, 300, 1, 2, 2, false, false};
  EXPECT_NEAR(model.predict(small, k).us, measured(small, 0.2), 1e-6);
  // Another tile of the family borrows the family's samples.
  ModelKernel other{true, "wgmma", 128, 128};
  EXPECT_EQ(model.predict(big, other).basis, "3 samples of sparse wgmma");
  // Dense kernels have no samples: prior.
  EXPECT_EQ(model.predict(big, {false, "staged", 128, 128}).basis, "prior");
}

TEST(CostModel, AVariantOfATileHasItsOwnEfficiency) {
  // A cluster pair measured 20 % more efficient than the same tile alone:
  // each variant predicts from its own samples, an unmeasured variant of
  // the tile from both.
  CostModel model(testDevice());
  ModelKernel alone{true, "wgmma", 128, 256, "s5"};
  ModelKernel pair{true, "wgmma", 128, 256, "s5 c2"};
  ModelKernel grouped{true, "wgmma", 128, 256, "s5 c2 g16"};
  ModelProblem pb{8192, 8192, 8192, 1, 2, 2, false, false};
  auto measured = [&](const ModelKernel &k, double efficiency) {
    return model.rooflineUs(pb, k) / efficiency + 2.0;
  };
  model.addSample(pb, alone, measured(alone, 0.5), 0);
  model.addSample(pb, pair, measured(pair, 0.6), 0);
  EXPECT_EQ(model.predict(pb, pair).basis,
            "1 sample of sparse wgmma 128x256 s5 c2");
  EXPECT_NEAR(model.predict(pb, pair).us, measured(pair, 0.6), 1e-6);
  EXPECT_NEAR(model.predict(pb, alone).us, measured(alone, 0.5), 1e-6);
  CostModel::Prediction g = model.predict(pb, grouped);
  EXPECT_EQ(g.basis, "2 samples of sparse wgmma 128x256");
  EXPECT_NEAR(g.us, measured(grouped, std::sqrt(0.5 * 0.6)), 1e-6);
}

TEST(CostModel, LeaveOneOutIsExactForAConsistentFamilyAndNotOtherwise) {
  CostModel consistent(testDevice());
  CostModel noisy(testDevice());
  ModelKernel k{false, "staged", 128, 128};
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> efficiency(0.05, 0.9);
  int group = 0;
  for (int64_t m : {512, 1024, 2048, 4096})
    for (int64_t n : {16, 512, 4096}) {
      ModelProblem pb{m, n, 4096, 1, 2, 2, false, false};
      consistent.addSample(pb, k, consistent.rooflineUs(pb, k) / 0.4 + 2.0,
                           group);
      noisy.addSample(pb, k, noisy.rooflineUs(pb, k) / efficiency(rng) + 2.0,
                      group);
      ++group;
    }
  CostModel::Accuracy a = consistent.leaveOneOut();
  EXPECT_EQ(a.count, 12u);
  EXPECT_LT(a.p90, 1e-9);
  CostModel::Accuracy b = noisy.leaveOneOut();
  EXPECT_EQ(b.count, 12u);
  EXPECT_GT(b.median, 0.2);
}

// The choice a tuner makes from the model: with one tile uniformly more
// efficient in every problem, the model (without the problem's own
// samples) picks it everywhere, no regret; where the problems disagree on
// which tile is better, it picks wrong somewhere and the regret says how
// much slower that was.
TEST(CostModel, LeaveOneOutChoiceFindsTheFastestWhereTheProblemsAgree) {
  ModelKernel small{true, "wgmma", 128, 128, "s6"};
  ModelKernel large{true, "wgmma", 128, 256, "s5"};
  auto fill = [&](CostModel &model, bool agree) {
    int group = 0;
    for (int64_t m : {1024, 2048, 4096, 8192}) {
      ModelProblem pb{m, 4096, 4096, 1, 2, 2, false, false};
      // The large tile 0.6 of the peak, the small one 0.4 (or, where the
      // problems disagree, the other way round on every other problem).
      bool largeWins = agree || group % 2 == 0;
      model.addSample(
          pb, small,
          model.rooflineUs(pb, small) / (largeWins ? 0.4 : 0.6) + 3.0, group);
      model.addSample(
          pb, large,
          model.rooflineUs(pb, large) / (largeWins ? 0.6 : 0.4) + 3.0, group);
      ++group;
    }
  };
  CostModel agree(testDevice()), disagree(testDevice());
  fill(agree, true);
  fill(disagree, false);
  CostModel::ChoiceQuality a = agree.leaveOneOutChoice();
  EXPECT_EQ(a.groups, 4u);
  EXPECT_EQ(a.fastest, 4u);
  EXPECT_DOUBLE_EQ(a.worstRegret, 0.0);
  CostModel::ChoiceQuality d = disagree.leaveOneOutChoice();
  EXPECT_EQ(d.groups, 4u);
  EXPECT_LT(d.fastest, 4u);
  EXPECT_GT(d.worstRegret, 0.1);
  // A group of one sample is not a choice.
  CostModel single(testDevice());
  single.addSample(ModelProblem{1024, 1024, 1024, 1, 2, 2, false, false}, small,
                   50.0, 0);
  EXPECT_EQ(single.leaveOneOutChoice().groups, 0u);
}

TEST(CostModel, DeviceModels) {
  EXPECT_EQ(deviceModelFor("NVIDIA H200", "9.0").name, "H200");
  EXPECT_DOUBLE_EQ(deviceModelFor("NVIDIA H200", "9.0").dramTBs, 4.8);
  EXPECT_EQ(deviceModelFor("NVIDIA H100 PCIe", "9.0").sms, 114);
  EXPECT_EQ(deviceModelFor("", "9.0").name, "H100 SXM");
  EXPECT_EQ(deviceModelFor("NVIDIA A100-SXM4-80GB", "8.0").sms, 108);
  EXPECT_EQ(deviceModelFor("", "8.6").name, "A10");
}

} // namespace
