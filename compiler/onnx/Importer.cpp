//===- Importer.cpp - the state of one graph import ---------*- C++ -*-===//
//
// See Importer.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Importer.h"

#include "passes/CheckSizes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::stc::onnx_import;

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

/// The location of a node's ops: its name (for the IR) around
/// `model.onnx:<index>:0` (for diagnostics, which print the file form).
static Location nodeLocation(GraphImporter &importer,
                             const onnx::NodeProto &node, int index) {
  MLIRContext *ctx = &importer.context;
  std::string name = node.name().empty()
                         ? node.op_type() + "_" + std::to_string(index)
                         : node.name();
  return NameLoc::get(StringAttr::get(ctx, name),
                      FileLineColLoc::get(ctx, importer.modelPath, index, 0));
}

NodeContext::NodeContext(GraphImporter &importer, const onnx::NodeProto &node,
                         int index)
    : node(node), index(index), b(importer.builder),
      loc(nodeLocation(importer, node, index)), importer(importer) {}

std::string NodeContext::describe() const {
  std::string s = "node #" + std::to_string(index);
  if (!node.name().empty())
    s += " '" + node.name() + "'";
  return s + " (" + node.op_type() + ")";
}

LogicalResult NodeContext::fail(const Twine &message) {
  return importer.fail(describe() + ": " + message);
}

void NodeContext::remark(const Twine &message) {
  emitRemark(loc) << "onnx: " << describe() << ": " << message;
}

int64_t NodeContext::opset() const { return importer.model.opset; }

unsigned NodeContext::numInputs() const {
  unsigned n = node.input_size();
  while (n > 0 && node.input(n - 1).empty())
    --n;
  return n;
}

bool NodeContext::hasInput(unsigned i) const {
  return i < static_cast<unsigned>(node.input_size()) && !node.input(i).empty();
}

FailureOr<Value> NodeContext::input(unsigned i) {
  if (!hasInput(i))
    return fail("input #" + Twine(i) + " is missing");
  FailureOr<Value> v = importer.getValue(node.input(i), loc);
  if (failed(v) && importer.error().empty())
    return fail("input #" + Twine(i) + " ('" + node.input(i) +
                "') has no value");
  return v;
}

FailureOr<Value> NodeContext::optionalInput(unsigned i) {
  if (!hasInput(i))
    return Value();
  return input(i);
}

const HostTensor *NodeContext::constant(unsigned i) const {
  if (!hasInput(i))
    return nullptr;
  ValueEntry *entry = importer.lookup(node.input(i));
  return entry ? entry->constant.get() : nullptr;
}

FailureOr<const HostTensor *> NodeContext::requireConstant(unsigned i,
                                                           StringRef role) {
  if (!hasInput(i))
    return fail("its " + role + " input (#" + Twine(i) + ") is missing");
  if (const HostTensor *t = constant(i))
    return t;
  return fail("its " + role + " input ('" + node.input(i) +
              "') must be a constant (an initializer or a Constant node)");
}

const onnx::NodeProto *NodeContext::producer(unsigned i) const {
  if (!hasInput(i))
    return nullptr;
  ValueEntry *entry = importer.lookup(node.input(i));
  if (!entry || entry->producer < 0)
    return nullptr;
  return &importer.node(entry->producer);
}

unsigned NodeContext::useCount(unsigned i) const {
  return hasInput(i) ? importer.useCount(node.input(i)) : 0;
}

const onnx::AttributeProto *NodeContext::attribute(StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

FailureOr<int64_t> NodeContext::getInt(StringRef name, int64_t defaultValue) {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return defaultValue;
  if (attr->type() != onnx::AttributeProto::INT)
    return fail("attribute '" + name + "' must be an int");
  return attr->i();
}

FailureOr<double> NodeContext::getFloat(StringRef name, double defaultValue) {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return defaultValue;
  if (attr->type() != onnx::AttributeProto::FLOAT)
    return fail("attribute '" + name + "' must be a float");
  return static_cast<double>(attr->f());
}

FailureOr<std::string> NodeContext::getString(StringRef name,
                                              StringRef defaultValue) {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return defaultValue.str();
  if (attr->type() != onnx::AttributeProto::STRING)
    return fail("attribute '" + name + "' must be a string");
  return attr->s();
}

FailureOr<std::optional<SmallVector<int64_t>>>
NodeContext::getInts(StringRef name) {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return std::optional<SmallVector<int64_t>>();
  if (attr->type() != onnx::AttributeProto::INTS)
    return fail("attribute '" + name + "' must be a list of ints");
  return std::optional<SmallVector<int64_t>>(
      SmallVector<int64_t>(attr->ints().begin(), attr->ints().end()));
}

unsigned NodeContext::numOutputs() const {
  unsigned n = node.output_size();
  while (n > 0 && node.output(n - 1).empty())
    --n;
  return n;
}

void NodeContext::setOutput(unsigned i, Value value) {
  if (i >= static_cast<unsigned>(node.output_size()) || node.output(i).empty())
    return;
  ValueEntry entry;
  entry.value = value;
  entry.producer = index;
  importer.define(node.output(i), std::move(entry));
}

void NodeContext::setConstantOutput(unsigned i, HostTensor tensor) {
  if (i >= static_cast<unsigned>(node.output_size()) || node.output(i).empty())
    return;
  ValueEntry entry;
  tensor.name = node.output(i);
  entry.constant = std::make_shared<HostTensor>(std::move(tensor));
  entry.producer = index;
  importer.define(node.output(i), std::move(entry));
}

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

GraphImporter::GraphImporter(MLIRContext &context, const LoadedModel &model,
                             llvm::StringRef modelPath)
    : context(context), builder(&context), model(model),
      modelPath(modelPath.str()) {}

LogicalResult GraphImporter::fail(const Twine &message) {
  if (errorMessage.empty())
    errorMessage = message.str();
  return failure();
}

ValueEntry *GraphImporter::lookup(llvm::StringRef name) {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

void GraphImporter::define(llvm::StringRef name, ValueEntry entry) {
  values[name] = std::move(entry);
}

unsigned GraphImporter::useCount(llvm::StringRef name) const {
  auto it = uses.find(name);
  return it == uses.end() ? 0 : it->second;
}

const onnx::NodeProto &GraphImporter::node(int index) const {
  return model.model->graph().node(index);
}

/// A resource blob key from a tensor name: identifier characters only.
static std::string blobName(llvm::StringRef name) {
  std::string out = "onnx_";
  for (char c : name)
    out += llvm::isAlnum(c) || c == '_' || c == '.' ? c : '_';
  return out;
}

Value GraphImporter::materialize(const HostTensor &tensor, Location loc) {
  Type elementType =
      mlirElementType(&context, static_cast<int32_t>(tensor.dtype));
  if (!elementType) {
    (void)fail("tensor '" + tensor.name + "' of element type " +
               dtypeName(static_cast<int32_t>(tensor.dtype)) +
               " cannot be used by the program (only FLOAT, FLOAT16, "
               "BFLOAT16, INT8, INT32 and INT64 tensors can)");
    return nullptr;
  }
  auto type = RankedTensorType::get(tensor.shape, elementType);
  Attribute attr;
  if (tensor.numElements() > 1) {
    // One copy, into the blob; the text form prints it once, in the
    // dialect_resources section.
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        tensor.bytes, alignof(uint64_t), /*dataIsMutable=*/false);
    attr = DenseResourceElementsAttr::get(type, blobName(tensor.name),
                                          std::move(blob));
  } else {
    attr = DenseElementsAttr::getFromRawBuffer(type, tensor.bytes);
  }
  return arith::ConstantOp::create(builder, loc, cast<TypedAttr>(attr));
}

FailureOr<Value> GraphImporter::getValue(llvm::StringRef name, Location user) {
  ValueEntry *entry = lookup(name);
  if (!entry)
    return failure();
  if (!entry->value && entry->constant) {
    // A Constant node's output is at that node; an initializer at its
    // first user (its name in the IR, the user's place for diagnostics).
    Location loc =
        entry->producer >= 0
            ? NodeContext(*this, node(entry->producer), entry->producer).loc
            : NameLoc::get(StringAttr::get(&context, name),
                           cast<NameLoc>(user).getChildLoc());
    entry->value = materialize(*entry->constant, loc);
  }
  if (!entry->value && entry->symbolic)
    entry->value = materializeSymbolic(*entry->symbolic, user);
  if (!entry->value)
    return failure();
  return entry->value;
}

LogicalResult GraphImporter::importInitializers() {
  const onnx::GraphProto &graph = model.model->graph();
  for (const onnx::TensorProto &proto : graph.initializer()) {
    auto tensor = std::make_shared<HostTensor>();
    std::string error;
    if (!decodeTensor(proto, model.directory, *tensor, error))
      return fail("initializer '" + proto.name() + "': " + error);
    ValueEntry entry;
    entry.constant = std::move(tensor);
    define(proto.name(), std::move(entry));
  }
  if (graph.sparse_initializer_size() > 0)
    return fail("sparse initializer '" +
                graph.sparse_initializer(0).values().name() +
                "' is not supported (store it dense)");
  return success();
}

/// Why a graph input's or a node output's type is refused: a static shape past
/// the limits of stc-check-sizes, or, with dynamic sizes, static dimensions
/// that alone pass them (later size arithmetic multiplies them), or "".
static std::string whyImportedTypeTooLarge(Type type) {
  if (std::string why = mlir::stc::whyTypeTooLarge(type); !why.empty())
    return why;
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || ranked.hasStaticShape())
    return "";
  // The same rule on the static dimensions alone.
  SmallVector<int64_t> known;
  for (int64_t d : ranked.getShape())
    if (!ShapedType::isDynamic(d))
      known.push_back(d);
  if (mlir::stc::whyTypeTooLarge(ranked.clone(known)).empty())
    return "";
  return "its static dimensions alone describe more than 2^47 bytes";
}

/// The tensor type of a graph input or output, or a message saying why
/// there is none.
static FailureOr<RankedTensorType> valueInfoType(MLIRContext &context,
                                                 const onnx::ValueInfoProto &vi,
                                                 std::string &why) {
  if (!vi.type().has_tensor_type()) {
    why = "is not a tensor";
    return failure();
  }
  const onnx::TypeProto_Tensor &t = vi.type().tensor_type();
  Type elementType = mlirElementType(&context, t.elem_type());
  if (!elementType) {
    why = "has element type " + dtypeName(t.elem_type()) +
          " (supported: FLOAT, FLOAT16, BFLOAT16, INT8, INT32, INT64)";
    return failure();
  }
  if (!t.has_shape()) {
    why = "has no shape (its rank must be known)";
    return failure();
  }
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto_Dimension &d : t.shape().dim()) {
    if (d.has_dim_value() && d.dim_value() < 0) {
      why = "has a negative dimension (" + std::to_string(d.dim_value()) + ")";
      return failure();
    }
    shape.push_back(d.has_dim_value() ? d.dim_value() : ShapedType::kDynamic);
  }
  auto type = RankedTensorType::get(shape, elementType);
  if (std::string large = whyImportedTypeTooLarge(type); !large.empty()) {
    why = "is too large: " + large;
    return failure();
  }
  return type;
}

LogicalResult
GraphImporter::declareInputs(SmallVectorImpl<Type> &types,
                             SmallVectorImpl<std::string> &names) {
  for (const onnx::ValueInfoProto &vi : model.model->graph().input()) {
    // An input with an initializer is a constant with a default (IR < 4
    // lists every initializer as an input): the importer takes the default.
    if (lookup(vi.name()))
      continue;
    std::string why;
    FailureOr<RankedTensorType> type = valueInfoType(context, vi, why);
    if (failed(type))
      return fail("graph input '" + vi.name() + "' " + why);
    types.push_back(*type);
    names.push_back(vi.name());
  }
  return success();
}

LogicalResult GraphImporter::convertNode(int index) {
  const onnx::NodeProto &proto = node(index);
  NodeContext node(*this, proto, index);
  if (!proto.domain().empty() && proto.domain() != "ai.onnx")
    return node.fail("operator domain '" + proto.domain() +
                     "' is not supported (only the default ai.onnx domain)");
  const OpConverter *converter = lookupConverter(proto.op_type());
  if (!converter)
    return node.fail("operator '" + proto.op_type() +
                     "' is not supported (docs/ONNX.md lists those that are)");
  SmallVector<StringRef> known;
  StringRef(converter->attributes).split(known, ',', -1, false);
  for (const onnx::AttributeProto &attr : proto.attribute())
    if (!llvm::is_contained(known, attr.name()))
      return node.fail("attribute '" + attr.name() + "' is not supported");
  if (node.numOutputs() > converter->maxOutputs)
    return node.fail("output #" + Twine(converter->maxOutputs) + " ('" +
                     proto.output(converter->maxOutputs) +
                     "') is not supported (only the first " +
                     Twine(converter->maxOutputs) + ")");
  if (failed(converter->convert(node))) {
    if (errorMessage.empty())
      return node.fail("cannot be converted");
    return failure();
  }
  for (unsigned i = 0; i < node.numOutputs(); ++i) {
    if (proto.output(i).empty())
      continue;
    ValueEntry *out = lookup(proto.output(i));
    if (!out)
      return node.fail("produced no value for output #" + Twine(i));
    // Every later size computation (folders, buffers, kernel grids) assumes
    // that a static shape's byte size fits the limits: refuse it here, at
    // the node that made it.
    if (out->value)
      if (std::string why = whyImportedTypeTooLarge(out->value.getType());
          !why.empty())
        return node.fail("output #" + Twine(i) + " is too large: " + why);
  }
  return success();
}

Location GraphImporter::outputLoc(llvm::StringRef name) {
  return NameLoc::get(StringAttr::get(&context, name),
                      FileLineColLoc::get(&context, modelPath, 0, 0));
}

LogicalResult GraphImporter::collectResults(SmallVectorImpl<Value> &results) {
  for (const onnx::ValueInfoProto &vi : model.model->graph().output()) {
    FailureOr<Value> v = getValue(vi.name(), outputLoc(vi.name()));
    if (failed(v)) {
      if (errorMessage.empty())
        return fail("graph output '" + vi.name() + "' has no value");
      return failure();
    }
    auto type = cast<RankedTensorType>(v->getType());
    // The declared type, where there is one, must agree with the program's.
    if (vi.type().has_tensor_type()) {
      const onnx::TypeProto_Tensor &t = vi.type().tensor_type();
      Type declared = mlirElementType(&context, t.elem_type());
      if (t.elem_type() != 0 && declared != type.getElementType())
        return fail(
            "graph output '" + vi.name() + "' is declared " +
            dtypeName(t.elem_type()) + " but computed as " +
            dtypeName(static_cast<int32_t>(dtypeOf(type.getElementType()))));
      if (t.has_shape()) {
        bool ok = t.shape().dim_size() == type.getRank();
        for (int64_t d = 0; ok && d < type.getRank(); ++d) {
          const onnx::TensorShapeProto_Dimension &dim = t.shape().dim(d);
          ok = !dim.has_dim_value() || type.isDynamicDim(d) ||
               dim.dim_value() == type.getDimSize(d);
        }
        if (!ok)
          return fail("graph output '" + vi.name() +
                      "' has a declared shape that differs from the "
                      "computed one");
      }
    }
    results.push_back(*v);
  }
  return success();
}

OwningOpRef<ModuleOp> GraphImporter::run(llvm::StringRef entry) {
  const onnx::GraphProto &graph = model.model->graph();
  for (const onnx::NodeProto &n : graph.node())
    for (const std::string &in : n.input())
      if (!in.empty())
        ++uses[in];
  for (const onnx::ValueInfoProto &vi : graph.output())
    ++uses[vi.name()];

  Location moduleLoc = FileLineColLoc::get(&context, modelPath, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(moduleLoc);
  if (failed(importInitializers()))
    return nullptr;
  SmallVector<Type> inputTypes;
  SmallVector<std::string> inputNames;
  if (failed(declareInputs(inputTypes, inputNames)))
    return nullptr;

  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, moduleLoc, entry,
                                   builder.getFunctionType(inputTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    body->getArgument(i).setLoc(outputLoc(name));
    ValueEntry value;
    value.value = body->getArgument(i);
    define(name, std::move(value));
  }
  builder.setInsertionPointToEnd(body);
  for (int i = 0, e = graph.node_size(); i < e; ++i)
    if (failed(convertNode(i)))
      return nullptr;
  SmallVector<Value> results;
  if (failed(collectResults(results)))
    return nullptr;
  func::ReturnOp::create(builder, moduleLoc, results);
  func.setFunctionType(
      builder.getFunctionType(inputTypes, ValueRange(results).getTypes()));

  // Ops the fused patterns made redundant, and constants nobody used (in
  // reverse, so that a chain goes in one sweep).
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isOpTriviallyDead(&op))
      op.erase();
  if (failed(verify(*module))) {
    (void)fail("internal error: the imported module does not verify");
    return nullptr;
  }
  return module;
}
