//===- ShapeValues.h - shapes that depend on dynamic sizes --*- C++ -*-===//
//
// Exporters compute the target of a Reshape from the input's own shape
// (torch.onnx with a dynamic batch: Shape -> Gather -> Mul -> Unsqueeze ->
// Concat -> Reshape). Where every element is static that chain folds to a
// constant (ConstantFolding.cpp); where one is dynamic its elements are kept
// as index values (SymbolicInts), so that the Reshape gets its sizes and no
// shape tensor is computed at run time. Anything else that reads such a
// value gets it as a tensor.from_elements.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_ONNX_SHAPEVALUES_H
#define STC_COMPILER_ONNX_SHAPEVALUES_H

#include "compiler/onnx/Importer.h"

namespace mlir::stc::onnx_import {

/// Input `i` as symbolic INT64 elements: a symbolic value, or a small
/// integer constant. nullopt otherwise.
std::optional<SymbolicInts> readSymbolic(NodeContext &node, unsigned i);

/// Whether any input of `node` is a symbolic value.
bool hasSymbolicInput(NodeContext &node);

/// Sets output `i`: a constant when every element is static.
void setSymbolicOutput(NodeContext &node, unsigned i, SymbolicInts ints);

/// The converters' symbolic paths: each returns true when it handled the
/// node (its symbolic inputs), false when the node is not for it, failure
/// with an error when it cannot be handled.
FailureOr<bool> convertSymbolicShape(NodeContext &node);
FailureOr<bool> convertSymbolicBinary(NodeContext &node, int kind);
FailureOr<bool> convertSymbolicShapeOp(NodeContext &node);

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_SHAPEVALUES_H
