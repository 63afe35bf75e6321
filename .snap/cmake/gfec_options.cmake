# SPDX-License-Identifier: BSD-3-Clause
# Build options. AUTO means: on when the toolchain or library is found.
set(GFEC_WITH_CUDA AUTO CACHE STRING "Build the CUDA backend (ON, OFF, AUTO: when nvcc is found)")
set(GFEC_WITH_RDMA AUTO CACHE STRING "Build the RDMA transport (ON, OFF, AUTO: when rdma-core is found)")
set(GFEC_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined")
set_property(CACHE GFEC_WITH_CUDA PROPERTY STRINGS AUTO ON OFF)
set_property(CACHE GFEC_WITH_RDMA PROPERTY STRINGS AUTO ON OFF)

if(GFEC_SANITIZE)
  add_compile_options(-fsanitize=${GFEC_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${GFEC_SANITIZE})
endif()

# tests/fuzz as libFuzzer binaries (clang): every C/C++ file gets the fuzzer's coverage
# instrumentation, so the parsers in the libraries are what guides it. tests/fuzz/run_fuzz.sh.
option(GFEC_FUZZ "Build tests/fuzz for libFuzzer (clang) instead of its corpus-replay driver" OFF)
if(GFEC_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GFEC_FUZZ=ON needs clang: CC=clang CXX=clang++ cmake ...")
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>")
endif()

# CUDA: nvcc is looked for on PATH, in CUDACXX and in /usr/local/cuda. Hopper first: sm_90 code
# plus compute_90 PTX for newer GPUs (CMAKE_CUDA_ARCHITECTURES overrides).
set(GFEC_HAVE_CUDA OFF)
if(NOT GFEC_WITH_CUDA STREQUAL "OFF")
  if(NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(ENV{CUDACXX} /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(GFEC_HAVE_CUDA ON)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
  elseif(GFEC_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GFEC_WITH_CUDA=ON but no nvcc was found (set CUDACXX or install the CUDA toolkit)")
  endif()
endif()

set(GFEC_HAVE_RDMA OFF)
if(NOT GFEC_WITH_RDMA STREQUAL "OFF")
  # Headers only: libibverbs and librdmacm are loaded with dlopen at run time (rdma/verbs.c).
  find_path(GFEC_IBVERBS_INCLUDE infiniband/verbs.h)
  find_path(GFEC_RDMACM_INCLUDE rdma/rdma_cma.h)
  if(GFEC_IBVERBS_INCLUDE AND GFEC_RDMACM_INCLUDE)
    set(GFEC_HAVE_RDMA ON)
  elseif(GFEC_WITH_RDMA STREQUAL "ON")
    message(FATAL_ERROR "GFEC_WITH_RDMA=ON but infiniband/verbs.h was not found: apt-get install libibverbs-dev librdmacm-dev")
  endif()
endif()

# Ceph: the plugin builds against libradospp-dev's rados/buffer.h (the rest of the ABI is declared
# in plugin/ceph/ceph_ec_abi.h).
set(GFEC_WITH_CEPH AUTO CACHE STRING "Build the Ceph plugin libec_gfec.so (ON, OFF, AUTO: when libradospp-dev is found)")
set_property(CACHE GFEC_WITH_CEPH PROPERTY STRINGS AUTO ON OFF)
set(GFEC_HAVE_CEPH OFF)
if(NOT GFEC_WITH_CEPH STREQUAL "OFF")
  find_path(GFEC_RADOS_INCLUDE rados/buffer.h)
  if(GFEC_RADOS_INCLUDE)
    set(GFEC_HAVE_CEPH ON)
  elseif(GFEC_WITH_CEPH STREQUAL "ON")
    message(FATAL_ERROR "GFEC_WITH_CEPH=ON but rados/buffer.h was not found: apt-get install libradospp-dev")
  endif()
endif()
