/*===- capi-driver.c - drive STC through its C API ----------------*- C -*-===*
 *
 * capi-driver INPUT.mlir [PIPELINE-OPTIONS]
 *   Parses INPUT.mlir, runs the STC pipeline with the options text (for
 *   example "sparsity=force stop-after-stc") and prints the result.
 * capi-driver --sparsify-only INPUT.mlir
 *   Runs only the stc-sparsify-contractions pass, created through its
 *   generated C entry point, in a pass manager built here.
 * Exits 1 with the diagnostics on stderr when anything fails.  What a
 * Python or Rust front end would do through its FFI.
 *
 *===----------------------------------------------------------------------===*/
#include "compiler/StcVersion.h"
#include "compiler/capi/StcCAPI.h"

#include "mlir-c/Diagnostics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToFile(MlirStringRef text, void *file) {
  fwrite(text.data, 1, text.length, (FILE *)file);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  fputs("capi-driver: diagnostic: ", stderr);
  mlirDiagnosticPrint(diagnostic, printToFile, stderr);
  fputc('\n', stderr);
  return mlirLogicalResultSuccess();
}

static char *readFile(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = (char *)malloc((size_t)size + 1);
  if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    text = NULL;
  }
  if (text)
    text[size] = '\0';
  fclose(f);
  return text;
}

int main(int argc, char **argv) {
  int sparsifyOnly = argc > 1 && strcmp(argv[1], "--sparsify-only") == 0;
  if (sparsifyOnly) {
    --argc;
    ++argv;
  }
  if (argc < 2 || argc > 3 || (sparsifyOnly && argc != 2)) {
    fprintf(stderr, "usage: capi-driver INPUT.mlir [PIPELINE-OPTIONS]\n"
                    "       capi-driver --sparsify-only INPUT.mlir\n");
    return 2;
  }
  MlirStringRef version = stcGetVersion();
  if (strncmp(version.data, STC_VERSION_STRING, version.length) != 0) {
    fprintf(stderr, "capi-driver: header and library versions differ\n");
    return 1;
  }
  char *source = readFile(argv[1]);
  if (!source) {
    fprintf(stderr, "capi-driver: cannot read '%s'\n", argv[1]);
    return 1;
  }

  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  stcRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  /* The stc dialect alone is also reachable through its handle. */
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__stc__(), ctx);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);

  int status = 1;
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (!mlirModuleIsNull(module)) {
    MlirLogicalResult result;
    if (sparsifyOnly) {
      MlirPassManager pm = mlirPassManagerCreate(ctx);
      mlirPassManagerAddOwnedPass(pm, mlirCreateStcStcSparsifyContractions());
      result = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
      mlirPassManagerDestroy(pm);
    } else {
      const char *options = argc == 3 ? argv[2] : "";
      result = stcRunPipeline(module, mlirStringRefCreateFromCString(options));
    }
    if (mlirLogicalResultIsSuccess(result)) {
      mlirOperationPrint(mlirModuleGetOperation(module), printToFile, stdout);
      fputc('\n', stdout);
      status = 0;
    }
    mlirModuleDestroy(module);
  }
  mlirContextDestroy(ctx);
  free(source);
  return status;
}
