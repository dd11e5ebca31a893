# SPDX-License-Identifier: MIT
# Installation and the Debian packages (scripts/package.sh builds them with CPack):
#   rackbench-agent  the agent, its unit and default settings
#   rackbench        the coordinator, its unit
#   python3-rackbench  the h5py helper (python/rackbench_h5.py)
include(GNUInstallDirs)
# who builds the packages signs them: RB_MAINTAINER="Name <address>" at configure
set(RB_MAINTAINER "rackbench maintainers <maintainers@rackbench.invalid>" CACHE STRING
	"Maintainer field of the Debian packages")

install(TARGETS rackbench-agent RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT agent)
install(FILES deploy/rackbench-agent.service DESTINATION lib/systemd/system COMPONENT agent)
install(FILES deploy/agent.yaml DESTINATION /etc/rackbench COMPONENT agent)
install(TARGETS rackbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT coordinator)
install(FILES deploy/rackbench.service deploy/rackbench-burnin@.service deploy/rackbench-burnin@.timer
	DESTINATION lib/systemd/system COMPONENT coordinator)
install(FILES python/rackbench_h5.py DESTINATION lib/python3/dist-packages COMPONENT python)
foreach(c agent coordinator python)
	set(pkg_agent rackbench-agent)
	set(pkg_coordinator rackbench)
	set(pkg_python python3-rackbench)
	install(FILES packaging/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${pkg_${c}}
		COMPONENT ${c})
	# a native package's changelog, compressed as Debian policy wants it
	set(cl ${CMAKE_BINARY_DIR}/packaging/${c}/changelog)
	file(WRITE ${cl} "${pkg_${c}} (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
		"  * Built from the rackbench source tree.\n\n"
		" -- ${RB_MAINTAINER}  Tue, 01 Dec 2026 00:00:00 +0000\n")
	add_custom_command(OUTPUT ${cl}.gz COMMAND gzip -9nf -k ${cl} DEPENDS ${cl})
	add_custom_target(changelog_${c} ALL DEPENDS ${cl}.gz)
	install(FILES ${cl}.gz DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${pkg_${c}}
		RENAME changelog.gz COMPONENT ${c})
endforeach()
install(FILES README.md docs/burn-in.md DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/rackbench
	COMPONENT coordinator)
# the manual pages (man/, made by scripts/gen_man.py from the programs' tables), compressed
foreach(page rackbench-agent.1:agent rackbench.1:coordinator rackbench-campaign.5:coordinator)
	string(REPLACE ":" ";" pc ${page})
	list(GET pc 0 name)
	list(GET pc 1 comp)
	string(REGEX REPLACE ".*\\." "" sect ${name})
	set(mp ${CMAKE_BINARY_DIR}/packaging/man/${name})
	add_custom_command(OUTPUT ${mp}.gz
		COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/packaging/man
		COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/man/${name} ${mp}
		COMMAND gzip -9nf ${mp}
		DEPENDS ${CMAKE_SOURCE_DIR}/man/${name})
	string(REPLACE "." "_" tname ${name})
	add_custom_target(man_${tname} ALL DEPENDS ${mp}.gz)
	install(FILES ${mp}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${sect} COMPONENT ${comp})
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rackbench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${RB_MAINTAINER}")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL agent coordinator python)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_AGENT_PACKAGE_NAME rackbench-agent)
set(CPACK_DEBIAN_AGENT_DESCRIPTION "storage benchmark agent for NVMe drives
The per-host agent of rackbench, a storage benchmark for racks and fleets of
NVMe drives: it connects to a coordinator and runs the points it is assigned
on its drives with an io_uring engine, guarded against writing any drive it
was not allowed to.")
set(CPACK_DEBIAN_AGENT_PACKAGE_CONTROL_EXTRA
	"${CMAKE_SOURCE_DIR}/packaging/agent/postinst;${CMAKE_SOURCE_DIR}/packaging/agent/prerm;${CMAKE_SOURCE_DIR}/packaging/agent/postrm;${CMAKE_SOURCE_DIR}/packaging/agent/conffiles")
set(CPACK_DEBIAN_AGENT_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_COORDINATOR_PACKAGE_NAME rackbench)
set(CPACK_DEBIAN_COORDINATOR_DESCRIPTION "storage benchmark coordinator for fleets of NVMe drives
The coordinator of rackbench, a storage benchmark for racks and fleets of
NVMe drives: it splits a campaign across agents, merges their samples into
one HDF5 file per run and reports (terminal, Markdown, CSV, HTML).")
set(CPACK_DEBIAN_COORDINATOR_PACKAGE_CONTROL_EXTRA
	"${CMAKE_SOURCE_DIR}/packaging/coordinator/postinst;${CMAKE_SOURCE_DIR}/packaging/coordinator/prerm;${CMAKE_SOURCE_DIR}/packaging/coordinator/postrm")
set(CPACK_DEBIAN_COORDINATOR_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-rackbench)
set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3, python3-h5py, python3-numpy, python3-pandas")
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_DESCRIPTION "storage benchmark results as pandas tables
Reads rackbench's HDF5 results files (one per campaign run) into pandas
data frames, with percentiles recomputed from the stored histograms.")
include(CPack)
