# find_package(spool) support for spool's C library and C++ wrapper, as
# installed by scripts/install-c.sh. Found relative to this file, so an
# installed tree can be moved.
#
# Imported targets:
#   spool::spool_shared  libspool_c.so
#   spool::spool_static  libspool_c.a, with the threads, dl and m it needs
#   spool::spool         spool::spool_shared, or spool::spool_static when
#                        spool_USE_STATIC_LIBS is ON
#   spool::spool_cpp     the header-only C++20 wrapper (spool.hpp) over
#                        spool::spool

include(CMakeFindDependencyMacro)
find_dependency(Threads)

get_filename_component(_spool_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_spool_include "${_spool_prefix}/include/spool")

if(NOT TARGET spool::spool_shared)
  add_library(spool::spool_shared SHARED IMPORTED)
  set_target_properties(spool::spool_shared PROPERTIES
    IMPORTED_LOCATION "${_spool_prefix}/lib/libspool_c.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_spool_include}")

  add_library(spool::spool_static STATIC IMPORTED)
  set_target_properties(spool::spool_static PROPERTIES
    IMPORTED_LOCATION "${_spool_prefix}/lib/libspool_c.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_spool_include}"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m")

  add_library(spool::spool INTERFACE IMPORTED)
  if(spool_USE_STATIC_LIBS)
    set_target_properties(spool::spool PROPERTIES INTERFACE_LINK_LIBRARIES spool::spool_static)
  else()
    set_target_properties(spool::spool PROPERTIES INTERFACE_LINK_LIBRARIES spool::spool_shared)
  endif()

  add_library(spool::spool_cpp INTERFACE IMPORTED)
  set_target_properties(spool::spool_cpp PROPERTIES
    INTERFACE_LINK_LIBRARIES spool::spool
    INTERFACE_COMPILE_FEATURES cxx_std_20)
endif()

foreach(_spool_file IN ITEMS
    "${_spool_prefix}/lib/libspool_c.so" "${_spool_prefix}/lib/libspool_c.a"
    "${_spool_include}/spool.h" "${_spool_include}/spool.hpp")
  if(NOT EXISTS "${_spool_file}")
    set(spool_FOUND FALSE)
    set(spool_NOT_FOUND_MESSAGE "spool's install is incomplete: ${_spool_file} is missing")
  endif()
endforeach()
unset(_spool_file)
unset(_spool_include)
unset(_spool_prefix)
