#pragma once

// Edge-list files read on the host and copied to a device (read_edge_list, to_device).

#include <herd/io/device_copy.hpp>
#include <herd/io/text/edge_list_parser.hpp>
