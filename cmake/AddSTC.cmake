##===- cmake/AddSTC.cmake - install and export helpers --------*- cmake -*-===//
#
# Every library and tool that an embedder may use is installed through
# stc_install() or stc_install_runtime() so that it lands in an export set
# that STCConfig.cmake loads under the STC:: namespace.  MLIR libraries are
# created with add_mlir_*_library(... DISABLE_INSTALL) because AddMLIR's own
# install rule would put them in no export set (out of tree there is no
# MLIRTargets to join), as CIRCT's add_circt_library does.
#
##===----------------------------------------------------------------------===//
include(GNUInstallDirs)

# Headers live under include/stc/ with the same relative paths as in the
# source tree ("dialects/Stc/StcDialect.h", "runtime/stc_runtime.h", ...).
set(STC_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/stc")
set(STC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/STC")

# stc_install(<target>...): installs compiler libraries (those that need
# LLVM/MLIR) into the STCTargets export set, component Compiler of the
# package.
function(stc_install)
  stc_install_into(STCTargets ${ARGN})
endfunction()

# stc_install_runtime(<target>...): installs what needs no LLVM/MLIR at all
# (the format library, weights I/O, the runtime, and the tools, which are
# self-contained executables) into STCRuntimeTargets, component Runtime: a
# program that only packs weights or links AOT objects finds them without
# any LLVM/MLIR development package.
function(stc_install_runtime)
  stc_install_into(STCRuntimeTargets ${ARGN})
endfunction()

# Installed executables and shared libraries find the LLVM/MLIR shared
# libraries they were built against (libmlir_c_runner_utils.so.22.1 for
# stc-run, ...) in LLVM's library directory, and STC's own next to them:
# without the second entry an installed stc-run did not start.
function(stc_install_into export_set)
  foreach(target ${ARGN})
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE" OR type STREQUAL "SHARED_LIBRARY" OR
       type STREQUAL "MODULE_LIBRARY")
      set_target_properties(${target} PROPERTIES INSTALL_RPATH
        "$ORIGIN/../${CMAKE_INSTALL_LIBDIR};${LLVM_LIBRARY_DIR}")
    endif()
    install(TARGETS ${target}
      EXPORT ${export_set}
      COMPONENT stc
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
      RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
      INCLUDES DESTINATION ${STC_INSTALL_INCLUDEDIR})
  endforeach()
endfunction()

# stc_includes(<target>): the repository root (and the build root, for
# generated headers) while building; include/stc once installed.
function(stc_includes target)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>
    $<INSTALL_INTERFACE:${STC_INSTALL_INCLUDEDIR}>)
endfunction()
