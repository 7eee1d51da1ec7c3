# Build helpers shared by every folder (after Abseil's AbseilHelpers.cmake).
#
#   melee_library(NAME <folder> SRCS ... [DEPS ...] [PUBLIC_DEPS ...])
#       -> target melee_<folder>, alias melee::<folder>, include root = repository root.
#   melee_test(NAME <name> SRCS ... [DEPS ...])
#       -> a GoogleTest executable registered with CTest (gtest_discover_tests).

include_guard(GLOBAL)

# C++ standard and sanitizers: every Melee target links this.
add_library(melee_options INTERFACE)
target_compile_features(melee_options INTERFACE cxx_std_20)
if(MELEE_SANITIZE)
  target_compile_options(melee_options INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(melee_options INTERFACE -fsanitize=address,undefined)
endif()
if(MELEE_FUZZ)
  # Every library is also instrumented for libFuzzer's coverage but has no main: the tests link as
  # usual, and the fuzz targets (tests/fuzz/) link -fsanitize=fuzzer, which brings libFuzzer's main.
  target_compile_options(melee_options INTERFACE -fsanitize=fuzzer-no-link)
endif()

# Warnings for our own code (generated code gets its own, quieter set).
add_library(melee_warnings INTERFACE)
target_compile_options(melee_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Woverloaded-virtual -Wimplicit-fallthrough -Wformat=2)
if(MELEE_WERROR)
  target_compile_options(melee_warnings INTERFACE -Werror)
endif()

function(melee_library)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS;PUBLIC_DEPS" ${ARGN})
  set(target melee_${ARG_NAME})
  add_library(${target} STATIC ${ARG_SRCS})
  add_library(melee::${ARG_NAME} ALIAS ${target})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${target}
    PUBLIC melee_options ${ARG_PUBLIC_DEPS}
    PRIVATE melee_warnings ${ARG_DEPS})
endfunction()

function(melee_test)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  target_link_libraries(${ARG_NAME} PRIVATE melee_options melee_warnings ${ARG_DEPS}
    GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_definitions(${ARG_NAME} PRIVATE
    MELEE_SOURCE_DIR="${PROJECT_SOURCE_DIR}" MELEE_BINARY_DIR="${PROJECT_BINARY_DIR}")
  # A test's own code is compiled without optimisation (half the build time of the tests); the
  # libraries it tests keep the build type's, so the tests run the code that ships.
  target_compile_options(${ARG_NAME} PRIVATE $<$<NOT:$<CONFIG:Debug>>:-O0>)
  set_target_properties(${ARG_NAME} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  include(GoogleTest)
  gtest_discover_tests(${ARG_NAME} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120)
endfunction()
