//===- Importer.h - the state of one graph import -----------*- C++ -*-===//
//
// GraphImporter walks the graph's nodes in order (the checker has verified
// that they are topologically sorted) and hands each to the converter of
// its op type (OpTable.cpp) through a NodeContext, which resolves inputs,
// reads and validates attributes, records outputs, and turns failures into
// one message naming the node.
//
// Values are created lazily: a constant (initializer, Constant node,
// computed at import) becomes an arith.constant only when an op of the
// program uses it, so shape arithmetic and weights replaced by folding never
// reach the output. Converters that recognize a pattern across several
// nodes (the Erf GELU, BatchNormalization after Conv, QDQ around MatMul)
// look back through the producers of their inputs and emit the fused form;
// ops left without users are erased at the end.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_ONNX_IMPORTER_H
#define STC_COMPILER_ONNX_IMPORTER_H

#include "compiler/onnx/HostTensor.h"
#include "compiler/onnx/ModelLoader.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::stc::onnx_import {

/// An INT64 tensor of rank 0 or 1 whose elements are sizes the program
/// knows (static ones) or computes (dynamic ones, as index values): a shape
/// and the arithmetic on it, as exporters write it before a Reshape
/// (ShapeValues.cpp).
struct SymbolicInts {
  SmallVector<OpFoldResult> elements;
  bool scalar = false;
};

/// What the importer knows about one named ONNX value.
struct ValueEntry {
  /// The tensor in the function (null for a constant or a symbolic value
  /// not used as a tensor yet).
  Value value;
  /// Its elements, when known at import time.
  std::shared_ptr<HostTensor> constant;
  /// Its elements as sizes, when they depend on dynamic dimensions.
  std::shared_ptr<SymbolicInts> symbolic;
  /// The node that produces it (-1: graph input or initializer).
  int producer = -1;
};

class GraphImporter;

/// One node as its converter sees it.
class NodeContext {
public:
  NodeContext(GraphImporter &importer, const onnx::NodeProto &node, int index);

  const onnx::NodeProto &node;
  const int index;
  OpBuilder &b;
  const Location loc;

  /// "node #3 'fc1' (Gemm)".
  std::string describe() const;
  /// Records "<describe()>: <message>" as the import's error.
  LogicalResult fail(const Twine &message);
  /// Emits a remark at this node's location.
  void remark(const Twine &message);
  int64_t opset() const;
  MLIRContext *getContext() const { return b.getContext(); }

  //===--------------------------------------------------------------------===//
  // Inputs
  //===--------------------------------------------------------------------===//

  /// Number of inputs, not counting trailing omitted ("") ones.
  unsigned numInputs() const;
  bool hasInput(unsigned i) const;
  /// Input `i` as a tensor of the program (materializing a constant).
  FailureOr<Value> input(unsigned i);
  /// input(i) when the node has it, else a null Value (an omitted optional
  /// input such as a bias).
  FailureOr<Value> optionalInput(unsigned i);
  /// Input `i` when its elements are known at import time, else null.
  const HostTensor *constant(unsigned i) const;
  /// Like constant(), but fails ("its <role> input must be a constant")
  /// when they are not.
  FailureOr<const HostTensor *> requireConstant(unsigned i, StringRef role);
  /// The node that produces input `i`, or null.
  const onnx::NodeProto *producer(unsigned i) const;
  /// How many node inputs and graph outputs read input `i`.
  unsigned useCount(unsigned i) const;

  //===--------------------------------------------------------------------===//
  // Attributes (presence of unsupported ones is checked before conversion)
  //===--------------------------------------------------------------------===//

  const onnx::AttributeProto *attribute(StringRef name) const;
  FailureOr<int64_t> getInt(StringRef name, int64_t defaultValue);
  FailureOr<double> getFloat(StringRef name, double defaultValue);
  FailureOr<std::string> getString(StringRef name, StringRef defaultValue);
  /// The ints attribute `name`, or nullopt when absent.
  FailureOr<std::optional<SmallVector<int64_t>>> getInts(StringRef name);

  //===--------------------------------------------------------------------===//
  // Outputs
  //===--------------------------------------------------------------------===//

  unsigned numOutputs() const;
  void setOutput(unsigned i, Value value);
  /// Output `i` known at import time (materialized only if used).
  void setConstantOutput(unsigned i, HostTensor tensor);

  GraphImporter &importer;
};

/// Converts one model's graph into a function.
class GraphImporter {
public:
  GraphImporter(MLIRContext &context, const LoadedModel &model,
                llvm::StringRef modelPath);

  /// The module, or null with error() set.
  OwningOpRef<ModuleOp> run(llvm::StringRef entry);

  const std::string &error() const { return errorMessage; }
  LogicalResult fail(const Twine &message);

  /// The program value of `name` for an op at `user` (a node's NameLoc),
  /// materializing a known constant, or failure when the name has no value.
  FailureOr<Value> getValue(llvm::StringRef name, Location user);
  ValueEntry *lookup(llvm::StringRef name);
  void define(llvm::StringRef name, ValueEntry entry);
  /// An arith.constant of `tensor` (dense_resource when it has more than
  /// one element); null with an error for element types the program cannot
  /// hold.
  Value materialize(const HostTensor &tensor, Location loc);
  /// A tensor.from_elements of the INT64 elements of `ints`
  /// (ShapeValues.cpp).
  Value materializeSymbolic(const SymbolicInts &ints, Location loc);
  unsigned useCount(llvm::StringRef name) const;
  const onnx::NodeProto &node(int index) const;

  MLIRContext &context;
  OpBuilder builder;
  const LoadedModel &model;
  std::string modelPath;

private:
  LogicalResult importInitializers();
  LogicalResult declareInputs(SmallVectorImpl<Type> &types,
                              SmallVectorImpl<std::string> &names);
  LogicalResult convertNode(int index);
  LogicalResult collectResults(SmallVectorImpl<Value> &results);
  /// The location of a graph input or output `name`: its name around
  /// `model.onnx:0:0`.
  Location outputLoc(llvm::StringRef name);

  llvm::StringMap<ValueEntry> values;
  llvm::StringMap<unsigned> uses;
  std::string errorMessage;
};

//===----------------------------------------------------------------------===//
// The op table (OpTable.cpp and the ops/*.cpp families)
//===----------------------------------------------------------------------===//

using ConvertFn = LogicalResult (*)(NodeContext &);

struct OpConverter {
  /// ONNX op type in the default domain ("Conv").
  const char *opType;
  ConvertFn convert;
  /// The attributes the converter reads, comma separated; any other is an
  /// error.
  const char *attributes;
  /// How many outputs it produces (more requested: an error).
  unsigned maxOutputs;
};

ArrayRef<OpConverter> getElementwiseConverters();
ArrayRef<OpConverter> getContractionConverters();
ArrayRef<OpConverter> getConvolutionConverters();
ArrayRef<OpConverter> getNormalizationConverters();
ArrayRef<OpConverter> getPoolingConverters();
ArrayRef<OpConverter> getShapeConverters();
ArrayRef<OpConverter> getQuantizationConverters();

/// The converter of `opType` in the default domain, or null.
const OpConverter *lookupConverter(llvm::StringRef opType);

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_IMPORTER_H
