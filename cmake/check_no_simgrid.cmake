# Fails when the models library refers to SimGrid or nlohmann::json (DESIGN.md: models/ is plain C++20).
# Run as: cmake -DTARGET_FILE=libpodsim_models.a -P check_no_simgrid.cmake
execute_process(COMMAND nm -C ${TARGET_FILE} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${TARGET_FILE}")
endif()
string(REGEX MATCHALL "[^\n]*(simgrid::|nlohmann::|sg4::|xbt_)[^\n]*" hits "${symbols}")
if(hits)
  list(GET hits 0 first)
  message(FATAL_ERROR "models library refers to SimGrid or JSON: ${first}")
endif()
message(STATUS "models library is free of SimGrid and JSON symbols")
