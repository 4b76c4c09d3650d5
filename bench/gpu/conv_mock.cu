// A plain CUDA C direct convolution with the parameters of stc.conv's GPU
// kernel (values, meta, dense = the NHWC input, out; R, P, K, value_cols,
// meta_cols, N, H, W, OH, OW), for testing the convolution benchmark's
// harness on a GPU (`run_gpu_bench.sh build-conv --mock`). One thread per
// output element, reading the canonical compressed filter. Not STC: results
// from it are labelled MOCK. The geometry the real kernel bakes in comes
// from -D definitions (build_conv_programs.py compiles one PTX per
// geometry). groups = 1 only.
#include <cuda_fp16.h>

#ifndef KH_
#error "compile with -DKH_=.. -DKW_=.. -DSTRIDE_=.. -DPAD_T=.. -DPAD_L=.. -DDIL_=.. -DC_=.. -DCP_=.."
#endif

extern "C" __global__ void mock_conv_f16(const __half *values,
                                         const unsigned short *meta,
                                         const __half *x, __half *out, int R,
                                         int P, int K, int vc, int mc, int N,
                                         int H, int W, int OH, int OW) {
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long long)P * R)
    return;
  int o = (int)(idx % R);
  long long p = idx / R;
  int ow = (int)(p % OW);
  int oh = (int)((p / OW) % OH);
  int n = (int)(p / ((long long)OW * OH));
  float acc = 0.f;
  for (int j = 0; j < vc; ++j) {
    int grp = j / 2;
    unsigned word = meta[(long long)o * mc + grp / 4];
    unsigned nib = (word >> (4 * (grp % 4))) & 0xFu;
    int k = grp * 4 + (int)((j % 2 == 0) ? (nib & 3u) : (nib >> 2));
    if (k >= K)
      continue;
    int c = k % CP_;
    int t = k / CP_;
    int kw = t % KW_;
    int kh = t / KW_;
    if (c >= C_)
      continue;
    int ih = oh * STRIDE_ - PAD_T + kh * DIL_;
    int iw = ow * STRIDE_ - PAD_L + kw * DIL_;
    if (ih < 0 || ih >= H || iw < 0 || iw >= W)
      continue;
    acc += __half2float(values[(long long)o * vc + j]) *
           __half2float(x[(((long long)n * H + ih) * W + iw) * C_ + c]);
  }
  out[p * R + o] = __float2half(acc);
}
