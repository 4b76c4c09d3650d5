//===- ShapeOps.cpp - reshapes, slices, gathers, constants --*- C++ -*-===//
//
// Flatten, Reshape, Unsqueeze and Squeeze are tensor.collapse_shape /
// expand_shape (on a constant, a new shape over the same bytes);
// Transpose is linalg.transpose; Concat fills a tensor.empty with
// tensor.insert_slice; Slice is tensor.extract_slice; Gather a
// linalg.generic reading the table with tensor.extract (indices wrap once
// when negative and are clamped into range: out-of-range indices are
// undefined in ONNX and must not read outside the table). Constant and
// Shape (of a static shape) are known at import; small constant inputs
// are folded so that computed shapes stay constants.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Builders.h"
#include "compiler/onnx/ConstantFolding.h"
#include "compiler/onnx/ShapeValues.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;
using namespace mlir::stc::onnx_import;

namespace {

/// `t` seen with shape `shape` (same elements, same bytes).
HostTensor withShape(const HostTensor &t, ArrayRef<int64_t> shape) {
  HostTensor r = t;
  r.shape.assign(shape.begin(), shape.end());
  return r;
}

/// Sets output 0 to input 0 reshaped to `sizes`: a constant keeps being
/// one (same bytes), anything else is reshaped in the program.
LogicalResult reshapeOutput(NodeContext &node, ArrayRef<OpFoldResult> sizes) {
  if (const HostTensor *c = node.constant(0)) {
    SmallVector<int64_t> shape = staticShape(sizes);
    if (!ShapedType::isDynamicShape(shape)) {
      node.setConstantOutput(0, withShape(*c, shape));
      return success();
    }
  }
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  node.setOutput(0, reshapeTo(node.b, node.loc, *x, sizes));
  return success();
}

/// The sizes of input 0 (static from a constant, else from the program).
FailureOr<SmallVector<OpFoldResult>> inputSizes(NodeContext &node) {
  if (const HostTensor *c = node.constant(0)) {
    SmallVector<OpFoldResult> sizes;
    for (int64_t d : c->shape)
      sizes.push_back(node.b.getIndexAttr(d));
    return sizes;
  }
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  return getSizes(node.b, node.loc, *x);
}

LogicalResult convertFlatten(NodeContext &node) {
  FailureOr<int64_t> axisAttr = node.getInt("axis", 1);
  FailureOr<SmallVector<OpFoldResult>> sizes = inputSizes(node);
  if (failed(axisAttr) || failed(sizes))
    return failure();
  int64_t rank = sizes->size();
  int64_t axis = *axisAttr < 0 ? *axisAttr + rank : *axisAttr;
  if (axis < 0 || axis > rank)
    return node.fail("axis " + Twine(*axisAttr) + " is out of range for rank " +
                     Twine(rank));
  OpBuilder &b = node.b;
  ArrayRef<OpFoldResult> all(*sizes);
  return reshapeOutput(node, {productOf(b, node.loc, all.take_front(axis)),
                              productOf(b, node.loc, all.drop_front(axis))});
}

LogicalResult convertReshape(NodeContext &node) {
  FailureOr<int64_t> allowZero = node.getInt("allowzero", 0);
  FailureOr<SmallVector<OpFoldResult>> in = inputSizes(node);
  if (failed(allowZero) || failed(in))
    return failure();
  // A constant, or computed from shapes (ShapeValues.h).
  std::optional<SymbolicInts> shape = readSymbolic(node, 1);
  if (!shape && failed(node.requireConstant(1, "shape")))
    return failure();
  if (!shape || shape->scalar)
    return node.fail("its shape input must be a 1-D INT64 tensor");
  OpBuilder &b = node.b;
  Location loc = node.loc;
  SmallVector<OpFoldResult> sizes;
  int inferred = -1;
  int64_t known = 1;
  bool knownStatic = true;
  for (auto [i, entry] : llvm::enumerate(shape->elements)) {
    std::optional<int64_t> fixed = getConstantIntValue(entry);
    if (!fixed) {
      // A size the program computes.
      sizes.push_back(entry);
      knownStatic = false;
      continue;
    }
    int64_t t = *fixed;
    if (t == 0 && !*allowZero) {
      if (i >= in->size())
        return node.fail("shape entry " + Twine(i) +
                         " is 0 (copy) but the input has rank " +
                         Twine(in->size()));
      sizes.push_back((*in)[i]);
    } else if (t == -1) {
      if (inferred >= 0)
        return node.fail("shape has more than one -1");
      inferred = i;
      sizes.push_back(b.getIndexAttr(1));
      continue;
    } else if (t < 0) {
      return node.fail("shape entry " + Twine(t) + " is negative");
    } else {
      sizes.push_back(b.getIndexAttr(t));
    }
    if (std::optional<int64_t> c = getConstantIntValue(sizes.back())) {
      if (llvm::MulOverflow(known, *c, known))
        return node.fail("shape has more elements than 64 bits count");
    } else
      knownStatic = false;
  }
  OpFoldResult total = productOf(b, loc, *in);
  std::optional<int64_t> totalStatic = getConstantIntValue(total);
  if (inferred >= 0) {
    if (totalStatic && knownStatic) {
      if (known == 0 || *totalStatic % known != 0)
        return node.fail("cannot infer the -1 entry: " + Twine(*totalStatic) +
                         " elements do not divide into " + Twine(known));
      sizes[inferred] = b.getIndexAttr(*totalStatic / known);
    } else {
      Value rest =
          getValueOrCreateConstantIndexOp(b, loc, productOf(b, loc, sizes));
      sizes[inferred] =
          arith::DivUIOp::create(
              b, loc, getValueOrCreateConstantIndexOp(b, loc, total), rest)
              .getResult();
    }
  } else if (totalStatic && knownStatic && known != *totalStatic) {
    return node.fail("cannot reshape " + Twine(*totalStatic) + " elements to " +
                     Twine(known));
  }
  return reshapeOutput(node, sizes);
}

/// The axes of input `i` (Unsqueeze/Squeeze from opset 13), normalized
/// against `rank`.
FailureOr<SmallVector<int64_t>> readAxes(NodeContext &node, unsigned i,
                                         int64_t rank) {
  FailureOr<const HostTensor *> t = node.requireConstant(i, "axes");
  if (failed(t))
    return failure();
  SmallVector<int64_t> axes;
  for (int64_t a : (*t)->toInts()) {
    FailureOr<int64_t> n = normalizeAxis(node, a, rank);
    if (failed(n))
      return failure();
    if (llvm::is_contained(axes, *n))
      return node.fail("axis " + Twine(a) + " is repeated");
    axes.push_back(*n);
  }
  return axes;
}

LogicalResult convertUnsqueeze(NodeContext &node) {
  FailureOr<bool> symbolic = convertSymbolicShapeOp(node);
  if (failed(symbolic) || *symbolic)
    return failure(failed(symbolic));
  FailureOr<SmallVector<OpFoldResult>> in = inputSizes(node);
  if (failed(in))
    return failure();
  int64_t rank = in->size();
  FailureOr<const HostTensor *> axesT = node.requireConstant(1, "axes");
  if (failed(axesT))
    return failure();
  FailureOr<SmallVector<int64_t>> axes =
      readAxes(node, 1, rank + (*axesT)->numElements());
  if (failed(axes))
    return failure();
  SmallVector<OpFoldResult> sizes;
  int64_t next = 0;
  for (int64_t d = 0; d < rank + static_cast<int64_t>(axes->size()); ++d)
    sizes.push_back(llvm::is_contained(*axes, d) ? node.b.getIndexAttr(1)
                                                 : (*in)[next++]);
  return reshapeOutput(node, sizes);
}

LogicalResult convertSqueeze(NodeContext &node) {
  FailureOr<bool> symbolic = convertSymbolicShapeOp(node);
  if (failed(symbolic) || *symbolic)
    return failure(failed(symbolic));
  FailureOr<SmallVector<OpFoldResult>> in = inputSizes(node);
  if (failed(in))
    return failure();
  int64_t rank = in->size();
  SmallVector<int64_t> axes;
  if (node.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> read = readAxes(node, 1, rank);
    if (failed(read))
      return failure();
    axes = *read;
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      std::optional<int64_t> c = getConstantIntValue((*in)[d]);
      if (!c)
        return node.fail("without axes, every dimension must be static");
      if (*c == 1)
        axes.push_back(d);
    }
  }
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(axes, d)) {
      sizes.push_back((*in)[d]);
      continue;
    }
    std::optional<int64_t> c = getConstantIntValue((*in)[d]);
    if (c && *c != 1)
      return node.fail("cannot squeeze dimension " + Twine(d) + " of size " +
                       Twine(*c));
  }
  return reshapeOutput(node, sizes);
}

LogicalResult convertTranspose(NodeContext &node) {
  FailureOr<Value> x = node.input(0);
  FailureOr<std::optional<SmallVector<int64_t>>> permAttr =
      node.getInts("perm");
  if (failed(x) || failed(permAttr))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  SmallVector<int64_t> perm;
  if (*permAttr)
    perm = **permAttr;
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<int64_t> sorted(perm);
  llvm::sort(sorted);
  if (sorted != llvm::to_vector(llvm::seq<int64_t>(0, rank)))
    return node.fail("perm is not a permutation of the " + Twine(rank) +
                     " dimensions");
  node.setOutput(0, transposeTensor(node.b, node.loc, *x, perm));
  return success();
}

/// Concat of small constants, at import.
bool foldConcat(NodeContext &node, int64_t axis) {
  SmallVector<const HostTensor *> parts;
  int64_t total = 0;
  for (unsigned i = 0; i < node.numInputs(); ++i) {
    const HostTensor *c = node.constant(i);
    if (!c || c->shape.size() <= static_cast<size_t>(axis) ||
        c->dtype != node.constant(0)->dtype)
      return false;
    parts.push_back(c);
    total += c->numElements();
  }
  if (total > kMaxFoldedElements)
    return false;
  SmallVector<int64_t> shape(parts[0]->shape);
  shape[axis] = 0;
  for (const HostTensor *p : parts)
    shape[axis] += p->shape[axis];
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  std::vector<double> values;
  std::vector<int64_t> ints;
  for (int64_t o = 0; o < outer; ++o) {
    for (const HostTensor *p : parts) {
      int64_t chunk = p->numElements() / std::max<int64_t>(outer, 1);
      for (int64_t i = o * chunk; i < (o + 1) * chunk; ++i) {
        values.push_back(p->getDouble(i));
        ints.push_back(p->getInt(i));
      }
    }
  }
  DType dtype = parts[0]->dtype;
  node.setConstantOutput(
      0, dtype == DType::I64
             ? HostTensor::fromInts(shape, ints, "")
             : HostTensor::fromDoubles(dtype, shape, values, ""));
  return true;
}

LogicalResult convertConcat(NodeContext &node) {
  FailureOr<bool> symbolic = convertSymbolicShapeOp(node);
  if (failed(symbolic) || *symbolic)
    return failure(failed(symbolic));
  FailureOr<int64_t> axisAttr = node.getInt("axis", 0);
  if (failed(axisAttr))
    return failure();
  if (node.numInputs() == 0 || !node.hasInput(0))
    return node.fail("has no inputs");
  int64_t rank0;
  if (const HostTensor *c = node.constant(0)) {
    rank0 = c->shape.size();
  } else {
    FailureOr<Value> v = node.input(0);
    if (failed(v))
      return failure();
    rank0 = cast<RankedTensorType>(v->getType()).getRank();
  }
  FailureOr<int64_t> axis = normalizeAxis(node, *axisAttr, rank0);
  if (failed(axis))
    return failure();
  if (foldConcat(node, *axis))
    return success();
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < node.numInputs(); ++i) {
    if (!node.hasInput(i))
      continue;
    FailureOr<Value> v = node.input(i);
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  auto type0 = cast<RankedTensorType>(inputs[0].getType());
  OpBuilder &b = node.b;
  Location loc = node.loc;
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, inputs[0]);
  SmallVector<OpFoldResult> along;
  for (Value v : inputs) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != type0.getRank() ||
        t.getElementType() != type0.getElementType())
      return node.fail("inputs must have the same rank and element type");
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (d == *axis)
        continue;
      int64_t a = t.getDimSize(d), c = type0.getDimSize(d);
      if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(c) && a != c)
        return node.fail("inputs differ in dimension " + Twine(d) + " (" +
                         Twine(c) + " and " + Twine(a) + ")");
    }
    along.push_back(getSizes(b, loc, v)[*axis]);
  }
  // The sum of the sizes along the axis.
  int64_t fixed = 0;
  Value dynamic;
  for (OpFoldResult s : along) {
    if (std::optional<int64_t> c = getConstantIntValue(s)) {
      fixed += *c;
      continue;
    }
    Value v = cast<Value>(s);
    dynamic = dynamic ? arith::AddIOp::create(b, loc, dynamic, v) : v;
  }
  sizes[*axis] =
      dynamic ? OpFoldResult(arith::AddIOp::create(
                                 b, loc, dynamic,
                                 arith::ConstantIndexOp::create(b, loc, fixed))
                                 .getResult())
              : OpFoldResult(b.getIndexAttr(fixed));
  Value result = emptyTensor(b, loc, sizes, type0.getElementType());
  OpFoldResult offset = b.getIndexAttr(0);
  for (auto [v, size] : llvm::zip(inputs, along)) {
    SmallVector<OpFoldResult> offsets(sizes.size(), b.getIndexAttr(0));
    offsets[*axis] = offset;
    SmallVector<OpFoldResult> partSizes = getSizes(b, loc, v);
    SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
    result = tensor::InsertSliceOp::create(b, loc, v, result, offsets,
                                           partSizes, strides);
    std::optional<int64_t> o = getConstantIntValue(offset);
    std::optional<int64_t> s = getConstantIntValue(size);
    if (o && s)
      offset = b.getIndexAttr(*o + *s);
    else
      offset = arith::AddIOp::create(
                   b, loc, getValueOrCreateConstantIndexOp(b, loc, offset),
                   getValueOrCreateConstantIndexOp(b, loc, size))
                   .getResult();
  }
  node.setOutput(0, result);
  return success();
}

LogicalResult convertSlice(NodeContext &node) {
  FailureOr<bool> symbolic = convertSymbolicShapeOp(node);
  if (failed(symbolic) || *symbolic)
    return failure(failed(symbolic));
  FailureOr<const HostTensor *> startsT = node.requireConstant(1, "starts");
  FailureOr<const HostTensor *> endsT = node.requireConstant(2, "ends");
  if (failed(startsT) || failed(endsT))
    return failure();
  FailureOr<SmallVector<OpFoldResult>> in = inputSizes(node);
  if (failed(in))
    return failure();
  int64_t rank = in->size();
  std::vector<int64_t> starts = (*startsT)->toInts();
  std::vector<int64_t> ends = (*endsT)->toInts();
  std::vector<int64_t> axes, steps(starts.size(), 1);
  if (node.hasInput(3)) {
    FailureOr<const HostTensor *> t = node.requireConstant(3, "axes");
    if (failed(t))
      return failure();
    axes = (*t)->toInts();
  } else {
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  }
  if (node.hasInput(4)) {
    FailureOr<const HostTensor *> t = node.requireConstant(4, "steps");
    if (failed(t))
      return failure();
    steps = (*t)->toInts();
  }
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return node.fail("starts, ends, axes and steps differ in length");
  OpBuilder &b = node.b;
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes(*in);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  for (size_t i = 0; i < starts.size(); ++i) {
    FailureOr<int64_t> axis = normalizeAxis(node, axes[i], rank);
    if (failed(axis))
      return failure();
    if (steps[i] <= 0)
      return node.fail("only positive steps are supported");
    std::optional<int64_t> dim = getConstantIntValue((*in)[*axis]);
    if (!dim)
      return node.fail("slicing along dynamic dimension " + Twine(*axis) +
                       " is not supported");
    // Negative positions count from the end; then clamp into [0, dim].
    auto clampPos = [&](int64_t p) {
      if (p < 0)
        p += *dim;
      return std::clamp<int64_t>(p, 0, *dim);
    };
    int64_t start = clampPos(starts[i]), end = clampPos(ends[i]);
    int64_t count =
        end > start ? (end - start + steps[i] - 1) / steps[i] : int64_t(0);
    offsets[*axis] = b.getIndexAttr(start);
    sizes[*axis] = b.getIndexAttr(count);
    strides[*axis] = b.getIndexAttr(steps[i]);
  }
  // A small constant (a shape, say): sliced at import.
  if (const HostTensor *c = node.constant(0);
      c && c->numElements() <= kMaxFoldedElements && rank == 1) {
    int64_t start = *getConstantIntValue(offsets[0]);
    int64_t count = *getConstantIntValue(sizes[0]);
    int64_t step = *getConstantIntValue(strides[0]);
    std::vector<int64_t> ints;
    std::vector<double> values;
    for (int64_t j = 0; j < count; ++j) {
      ints.push_back(c->getInt(start + j * step));
      values.push_back(c->getDouble(start + j * step));
    }
    node.setConstantOutput(
        0, c->dtype == DType::I64
               ? HostTensor::fromInts({count}, ints, "")
               : HostTensor::fromDoubles(c->dtype, {count}, values, ""));
    return success();
  }
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  node.setOutput(0, tensor::ExtractSliceOp::create(b, node.loc, *x, offsets,
                                                   sizes, strides)
                        .getResult());
  return success();
}

LogicalResult convertGather(NodeContext &node) {
  FailureOr<bool> symbolic = convertSymbolicShapeOp(node);
  if (failed(symbolic) || *symbolic)
    return failure(failed(symbolic));
  FailureOr<int64_t> axisAttr = node.getInt("axis", 0);
  if (failed(axisAttr))
    return failure();
  const HostTensor *data = node.constant(0);
  const HostTensor *indices = node.constant(1);
  // A shape entry, say: at import.
  if (data && indices && data->shape.size() == 1 &&
      data->numElements() <= kMaxFoldedElements) {
    int64_t n = data->numElements();
    std::vector<int64_t> ints;
    std::vector<double> values;
    for (int64_t i : indices->toInts()) {
      if (i < -n || i >= n)
        return node.fail("index " + Twine(i) + " is out of range for " +
                         Twine(n) + " elements");
      i = i < 0 ? i + n : i;
      ints.push_back(data->getInt(i));
      values.push_back(data->getDouble(i));
    }
    node.setConstantOutput(
        0,
        data->dtype == DType::I64
            ? HostTensor::fromInts(indices->shape, ints, "")
            : HostTensor::fromDoubles(data->dtype, indices->shape, values, ""));
    return success();
  }
  FailureOr<Value> table = node.input(0);
  FailureOr<Value> idx = node.input(1);
  if (failed(table) || failed(idx))
    return failure();
  auto tableType = cast<RankedTensorType>(table->getType());
  auto idxType = cast<RankedTensorType>(idx->getType());
  if (!idxType.getElementType().isInteger(64) &&
      !idxType.getElementType().isInteger(32))
    return node.fail("indices must be INT32 or INT64");
  int64_t rank = tableType.getRank(), q = idxType.getRank();
  FailureOr<int64_t> axis = normalizeAxis(node, *axisAttr, rank);
  if (failed(axis))
    return failure();
  OpBuilder &b = node.b;
  Location loc = node.loc;
  SmallVector<OpFoldResult> tableSizes = getSizes(b, loc, *table);
  SmallVector<OpFoldResult> idxSizes = getSizes(b, loc, *idx);
  // out[a..., i..., c...] = table[a..., idx[i...], c...].
  SmallVector<OpFoldResult> sizes(tableSizes.begin(),
                                  tableSizes.begin() + *axis);
  sizes.append(idxSizes.begin(), idxSizes.end());
  sizes.append(tableSizes.begin() + *axis + 1, tableSizes.end());
  int64_t outRank = sizes.size();
  SmallVector<AffineExpr> idxExprs;
  for (int64_t d = 0; d < q; ++d)
    idxExprs.push_back(b.getAffineDimExpr(*axis + d));
  Value extent = getValueOrCreateConstantIndexOp(b, loc, tableSizes[*axis]);
  Value table0 = *table;
  int64_t axisValue = *axis;
  Value result = buildParallelGeneric(
      b, loc, sizes, tableType.getElementType(), ValueRange{*idx},
      {AffineMap::get(outRank, 0, idxExprs, b.getContext())},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value i =
            arith::IndexCastOp::create(nb, nl, nb.getIndexType(), args[0]);
        Value zero = arith::ConstantIndexOp::create(nb, nl, 0);
        Value negative =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, i, zero);
        i = arith::SelectOp::create(
            nb, nl, negative, arith::AddIOp::create(nb, nl, i, extent), i);
        Value last = arith::SubIOp::create(
            nb, nl, extent, arith::ConstantIndexOp::create(nb, nl, 1));
        i = arith::MaxSIOp::create(
            nb, nl, arith::MinSIOp::create(nb, nl, i, last), zero);
        SmallVector<Value> coords;
        for (int64_t d = 0; d < axisValue; ++d)
          coords.push_back(linalg::IndexOp::create(nb, nl, d));
        coords.push_back(i);
        for (int64_t d = axisValue + q; d < outRank; ++d)
          coords.push_back(linalg::IndexOp::create(nb, nl, d));
        return tensor::ExtractOp::create(nb, nl, table0, coords).getResult();
      });
  node.setOutput(0, result);
  return success();
}

LogicalResult convertConstant(NodeContext &node) {
  if (node.node.attribute_size() != 1)
    return node.fail("needs exactly one value attribute");
  const onnx::AttributeProto &attr = node.node.attribute(0);
  StringRef name = attr.name();
  if (name == "value") {
    HostTensor t;
    std::string error;
    if (!decodeTensor(attr.t(), node.importer.model.directory, t, error))
      return node.fail("value: " + error);
    t.name = node.node.output(0);
    node.setConstantOutput(0, std::move(t));
  } else if (name == "value_float") {
    node.setConstantOutput(
        0, HostTensor::fromDoubles(DType::F32, {}, {attr.f()}, ""));
  } else if (name == "value_floats") {
    SmallVector<double> v(attr.floats().begin(), attr.floats().end());
    node.setConstantOutput(
        0, HostTensor::fromDoubles(DType::F32, {int64_t(v.size())}, v, ""));
  } else if (name == "value_int") {
    node.setConstantOutput(0, HostTensor::fromInts({}, {attr.i()}, ""));
  } else if (name == "value_ints") {
    SmallVector<int64_t> v(attr.ints().begin(), attr.ints().end());
    node.setConstantOutput(0, HostTensor::fromInts({int64_t(v.size())}, v, ""));
  } else {
    return node.fail("attribute '" + name + "' is not supported");
  }
  return success();
}

LogicalResult convertShape(NodeContext &node) {
  FailureOr<int64_t> startAttr = node.getInt("start", 0);
  FailureOr<int64_t> endAttr = node.getInt("end", INT64_MAX);
  FailureOr<SmallVector<OpFoldResult>> sizes = inputSizes(node);
  if (failed(startAttr) || failed(endAttr) || failed(sizes))
    return failure();
  int64_t rank = sizes->size();
  auto clampPos = [&](int64_t p) {
    if (p < 0)
      p += rank;
    return std::clamp<int64_t>(p, 0, rank);
  };
  int64_t start = clampPos(*startAttr), end = clampPos(*endAttr);
  // Dynamic sizes stay index values (ShapeValues.h); an all-static shape
  // becomes a constant.
  SymbolicInts dims;
  dims.elements.assign(sizes->begin() + start, sizes->begin() + end);
  setSymbolicOutput(node, 0, std::move(dims));
  return success();
}

const OpConverter kConverters[] = {
    {"Flatten", convertFlatten, "axis", 1},
    {"Reshape", convertReshape, "allowzero", 1},
    {"Unsqueeze", convertUnsqueeze, "", 1},
    {"Squeeze", convertSqueeze, "", 1},
    {"Transpose", convertTranspose, "perm", 1},
    {"Concat", convertConcat, "axis", 1},
    {"Slice", convertSlice, "", 1},
    {"Gather", convertGather, "axis", 1},
    {"Constant", convertConstant,
     "value,value_float,value_floats,value_int,value_ints,value_string,value_"
     "strings,sparse_value",
     1},
    {"Shape", convertShape, "start,end", 1},
};

} // namespace

ArrayRef<OpConverter> mlir::stc::onnx_import::getShapeConverters() {
  return kConverters;
}
