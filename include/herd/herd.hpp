#pragma once

/// \file
/// Herd: agent-based simulation on contact graphs, portable through Kokkos.

#include <herd/agents/property.hpp>
#include <herd/config.hpp>
#include <herd/core/error.hpp>
#include <herd/core/half.hpp>
#include <herd/core/portable_math.hpp>
#include <herd/core/random.hpp>
#include <herd/core/types.hpp>
#include <herd/engine/active_set.hpp>
#include <herd/engine/active_stepping.hpp>
#include <herd/engine/activity.hpp>
#include <herd/engine/agent.hpp>
#include <herd/engine/binned_push.hpp>
#include <herd/engine/model_contract.hpp>
#include <herd/engine/run.hpp>
#include <herd/engine/schedule.hpp>
#include <herd/engine/simulation.hpp>
#include <herd/engine/single_process.hpp>
#include <herd/engine/step_options.hpp>
#include <herd/engine/step_plan.hpp>
#include <herd/engine/telemetry.hpp>
#include <herd/ensemble/summary.hpp>
#include <herd/graph/build_csr.hpp>
#include <herd/graph/csr_graph.hpp>
#include <herd/graph/generators.hpp>
#include <herd/graph/graph_hash.hpp>
#include <herd/graph/reorder.hpp>
#include <herd/graph/transpose.hpp>
#include <herd/io/edge_list_reader.hpp>
#include <herd/io/text/attribute_table.hpp>
#include <herd/models/consensus.hpp>
#include <herd/models/covid.hpp>
#include <herd/models/opinion.hpp>
#include <herd/models/seir.hpp>
