##===- cmake/StcSanitizers.cmake - sanitizer and fuzzing builds -*- cmake -*-===//
#
# Two options for the reliability configurations of docs/RELIABILITY.md:
#
#   -DSTC_SANITIZE=address,undefined   every STC object instrumented with the
#                                      sanitizers (clang-22: scripts/test.sh
#                                      --sanitize configures build-asan so);
#   -DSTC_FUZZ=ON                      plus libFuzzer's coverage
#                                      instrumentation (clang only), so that
#                                      the fuzz targets of test/Fuzz guide
#                                      libFuzzer (scripts/fuzz.sh).
#
# Debian's LLVM/MLIR libraries stay uninstrumented: the lit configuration
# runs the tools with ASAN_OPTIONS=allow_user_poisoning=0 (see lit.cfg.py
# for why).
#
##===----------------------------------------------------------------------===//
set(STC_SANITIZE "" CACHE STRING
    "Sanitizers for every STC object, e.g. address,undefined or thread")
option(STC_FUZZ "Instrument STC for libFuzzer (clang; see test/Fuzz)" OFF)

if(STC_SANITIZE)
  # Recoverable UBSan checks would only print: make every report fatal, so
  # that a test that triggers one fails.
  set(_stc_sanitize_flags -fsanitize=${STC_SANITIZE}
      -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(${_stc_sanitize_flags})
  add_link_options(-fsanitize=${STC_SANITIZE})
  # Shared libraries get the sanitizer runtime from the executable that
  # loads them: LLVM's -z defs would refuse their undefined __asan_* names.
  string(REPLACE "-Wl,-z,defs" "" CMAKE_SHARED_LINKER_FLAGS
         "${CMAKE_SHARED_LINKER_FLAGS}")
  message(STATUS "STC: sanitizers ${STC_SANITIZE}")
endif()

if(STC_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "STC_FUZZ needs clang (e.g. -DCMAKE_CXX_COMPILER="
                        "clang++-22), found ${CMAKE_CXX_COMPILER_ID}")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
  message(STATUS "STC: libFuzzer coverage instrumentation")
endif()
