//===- HostTensor.h - tensors known while importing ---------*- C++ -*-===//
//
// The importer's view of data it holds at import time: initializers,
// Constant nodes, and what it computes itself (shape arithmetic, weights
// with a BatchNormalization folded in). Elements are little-endian and
// densely packed in the width of their ONNX data type; the bytes are the
// model's own where they can be (raw_data, a mapped external file), so a
// weight is copied once, into the MLIR constant.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_ONNX_HOSTTENSOR_H
#define STC_COMPILER_ONNX_HOSTTENSOR_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
} // namespace onnx

namespace mlir::stc::onnx_import {

/// ONNX element types the importer reads (onnx::TensorProto_DataType).
enum class DType : int32_t {
  Undefined = 0,
  F32 = 1,
  U8 = 2,
  I8 = 3,
  I32 = 6,
  I64 = 7,
  Bool = 9,
  F16 = 10,
  F64 = 11,
  BF16 = 16,
};

/// The ONNX name of data type `dtype` ("FLOAT", "INT64", ...), for messages;
/// any TensorProto_DataType value is accepted.
std::string dtypeName(int32_t dtype);

/// Bytes per element of `dtype`, 0 when the importer does not read it.
unsigned dtypeWidth(int32_t dtype);

/// The MLIR element type of `dtype` for tensors in the program (f32, f16,
/// bf16, i8, i32, i64), or null for types the program cannot hold.
Type mlirElementType(MLIRContext *context, int32_t dtype);

/// The ONNX data type of MLIR element type `type`, or Undefined.
DType dtypeOf(Type type);

bool isFloatDType(DType dtype);

/// A tensor whose elements the importer knows.
struct HostTensor {
  DType dtype = DType::Undefined;
  SmallVector<int64_t> shape;
  /// numElements() * dtypeWidth(dtype) bytes.
  ArrayRef<char> bytes;
  /// Keeps `bytes` alive when they are not the model's own.
  std::shared_ptr<const void> owner;
  /// Where it came from, for messages and blob names ("fc1.weight").
  std::string name;

  int64_t numElements() const;
  /// Element `i` converted to double / int64 (floats truncate toward zero).
  double getDouble(int64_t i) const;
  int64_t getInt(int64_t i) const;
  std::vector<double> toDoubles() const;
  std::vector<int64_t> toInts() const;

  /// A tensor owning `values` converted to `dtype` (floats rounded to
  /// nearest even, integers truncated).
  static HostTensor fromDoubles(DType dtype, ArrayRef<int64_t> shape,
                                ArrayRef<double> values, std::string name);
  static HostTensor fromInts(ArrayRef<int64_t> shape, ArrayRef<int64_t> values,
                             std::string name);
};

/// Decodes `proto` (raw_data, the typed fields, or external data read from
/// `modelDir`). On failure returns false with `error` saying why (without
/// the tensor's name, which the caller adds).
bool decodeTensor(const onnx::TensorProto &proto, llvm::StringRef modelDir,
                  HostTensor &out, std::string &error);

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_HOSTTENSOR_H
