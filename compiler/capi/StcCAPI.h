/*===- StcCAPI.h - C API of the STC compiler ----------------------*- C -*-===*
 *
 * The STC compiler driven from C (and so from Python, Rust or any language
 * with a C FFI), in the style of MLIR's own C API (mlir-c/IR.h): register
 * the dialect into an MlirContext, register the passes, and run the STC
 * pipeline on an MlirModule.  Valid C99 and C++.
 *
 *   MlirContext ctx = mlirContextCreate();
 *   MlirDialectRegistry registry = mlirDialectRegistryCreate();
 *   stcRegisterAllDialects(registry);
 *   mlirContextAppendDialectRegistry(ctx, registry);
 *   MlirModule module = mlirModuleCreateParse(ctx, source);
 *   if (mlirLogicalResultIsFailure(stcRunPipeline(module,
 *           mlirStringRefCreateFromCString("sparsity=force stop-after-stc"))))
 *     ...  // diagnostics went to the context's handlers
 *
 * Stability: the functions below are kept from one minor release to the
 * next within a major version once STC reaches 1.0; before that they change
 * only with a minor version bump (see README.md, "What is stable").
 *
 *===----------------------------------------------------------------------===*/
#ifndef STC_COMPILER_CAPI_STCCAPI_H
#define STC_COMPILER_CAPI_STCCAPI_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__stc__(): the stc dialect alone. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Stc, stc);

/* Inserts the stc dialect and every upstream dialect (and external model)
 * that STC's inputs and lowerings use: what stc-opt registers. */
MLIR_CAPI_EXPORTED void stcRegisterAllDialects(MlirDialectRegistry registry);

/* Registers every stc pass and the `stc-pipeline` pass pipeline in the
 * global registry, so that mlirParsePassPipeline accepts them. Idempotent. */
MLIR_CAPI_EXPORTED void stcRegisterAllPasses(void);

/* Generated from passes/Passes.td: mlirRegisterStcPasses() and, for each
 * pass P (its ODS name, e.g. StcFuseEpilogue), mlirCreateStc<P>() returning
 * an MlirPass for mlirPassManagerAddOwnedPass / mlirOpPassManagerAddOwnedPass
 * and mlirRegisterStc<P>(). */
#include "compiler/capi/StcPasses.capi.h.inc"

/* Appends the STC pipeline to `passManager` (anchored on builtin.module).
 * `options` holds the stc-pipeline options as text, e.g.
 * "target=cpu sparsity=force pattern=2:4" (empty for the defaults; see
 * `stc-opt --help`, option --stc-pipeline).  On bad options returns failure
 * and, when `errorCallback` is not NULL, passes it the message. */
MLIR_CAPI_EXPORTED MlirLogicalResult
stcAddPipeline(MlirOpPassManager passManager, MlirStringRef options,
               MlirStringCallback errorCallback, void *userData);

/* Runs the STC pipeline with `options` (as for stcAddPipeline) on `module`
 * in place.  Errors (bad options included) are reported as diagnostics on
 * the module's context; returns failure after any error. */
MLIR_CAPI_EXPORTED MlirLogicalResult stcRunPipeline(MlirModule module,
                                                    MlirStringRef options);

/* The STC version, "MAJOR.MINOR.PATCH" (STC_VERSION_STRING). */
MLIR_CAPI_EXPORTED MlirStringRef stcGetVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* STC_COMPILER_CAPI_STCCAPI_H */
