# Installation (docs/install.md). `cmake --install BUILD --prefix P` puts the program in P/bin, the hardware and model
# presets and the shipped scenarios in P/share/podsim, the docs in P/share/doc/podsim and the Python module in
# P/${PODSIM_PYTHON_INSTALL_DIR}/podsim. The program and the module find P/share/podsim/configs from where they are
# (default_config_dir, sim/scenario/hardware_json.hpp); $PODSIM_CONFIG_DIR still comes first. `cpack` in the build
# folder makes a Debian package of the same files (prefix /usr).
include(GNUInstallDirs)
if(TARGET podsim)
  install(TARGETS podsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/podsim/configs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/podsim/scenarios)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
if(PODSIM_PYTHON)
  # Debian's layout: /usr/lib/python3/dist-packages is on the system python3's path.
  set(PODSIM_PYTHON_INSTALL_DIR "lib/python3/dist-packages" CACHE STRING
      "Where the Python module's package folder podsim/ is installed, relative to the prefix")
  install(TARGETS podsim_python LIBRARY DESTINATION ${PODSIM_PYTHON_INSTALL_DIR}/podsim)
  install(FILES ${PODSIM_PYTHON_FILES} DESTINATION ${PODSIM_PYTHON_INSTALL_DIR}/podsim)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME podsim)
set(CPACK_PACKAGE_VENDOR "podsim developers")
set(CPACK_PACKAGE_CONTACT "podsim developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Discrete-event simulator of TPU pods and their ICI network, for capacity planning")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # the shared libraries' packages (SimGrid, fmt, ...) found by dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3")  # for the module
include(CPack)
