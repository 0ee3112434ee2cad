// The source of kbdata_test_pch (tests/CMakeLists.txt): the precompiled headers every test program
// reuses are built with this target; it defines nothing.
