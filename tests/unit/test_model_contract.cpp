// The model contract is checked when a model is compiled: a hook whose signature the engine does
// not call, or a hook without the hooks it needs, is an error rather than a silent slow path.

#include "test_common.hpp"

namespace {

using namespace herd;

struct Plain {};

struct Complete {
  KOKKOS_INLINE_FUNCTION std::uint8_t activity(agent_index) const { return activity::none; }
  KOKKOS_INLINE_FUNCTION std::uint32_t contribution(agent_index, float) const { return 1; }
  KOKKOS_INLINE_FUNCTION std::uint32_t spreader_contribution() const { return 1; }
  KOKKOS_INLINE_FUNCTION std::uint32_t spreader_contribution(float) const { return 1; }
  KOKKOS_INLINE_FUNCTION void const* contribution_address(agent_index) const { return nullptr; }
};

// Not const: the engine holds models by const reference.
struct MutableActivity {
  std::uint8_t activity(agent_index) { return activity::none; }
};
struct WideActivity {
  int activity(agent_index) const { return 0; }
};
struct ContributionWithoutWeight {
  std::uint32_t contribution(agent_index) const { return 1; }
};
struct FloatContribution {
  float contribution(agent_index, float) const { return 1.0f; }
};
// A spreader contribution of the wrong parameter type: the unweighted path would never find it.
struct SpreaderOfDouble {
  std::uint8_t activity(agent_index) const { return activity::none; }
  std::uint32_t contribution(agent_index, float) const { return 1; }
  std::uint32_t spreader_contribution(double) const { return 1; }
};
struct SpreaderOfOtherType {
  std::uint8_t activity(agent_index) const { return activity::none; }
  std::uint32_t contribution(agent_index, float) const { return 1; }
  std::uint64_t spreader_contribution() const { return 1; }
};
struct SpreaderWithoutActivity {
  std::uint32_t contribution(agent_index, float) const { return 1; }
  std::uint32_t spreader_contribution() const { return 1; }
};
struct AddressNotPointer {
  std::size_t contribution_address(agent_index) const { return 0; }
};

// A model may be final, though the check of a named member derives from the model: a final one is
// checked through its members' addresses (a final model failed to compile at all).
struct FinalPlain final {};
struct FinalComplete final : Complete {};
struct FinalWideActivity final {
  int activity(agent_index) const { return 0; }
};
static_assert(model_hook_errors<FinalPlain>() == 0);
static_assert(model_hook_errors<FinalComplete>() == 0);
static_assert(model_hook_errors<FinalWideActivity>() == hook_error::activity_type);

static_assert(model_hook_errors<Plain>() == 0);
static_assert(model_hook_errors<Complete>() == 0);
static_assert(model_hook_errors<MutableActivity>() == hook_error::activity_signature);
static_assert(model_hook_errors<WideActivity>() == hook_error::activity_type);
static_assert(model_hook_errors<ContributionWithoutWeight>() == hook_error::contribution_signature);
static_assert(model_hook_errors<FloatContribution>() == hook_error::contribution_type);
static_assert(model_hook_errors<SpreaderOfDouble>() == hook_error::spreader_signature);
static_assert(model_hook_errors<SpreaderOfOtherType>() == hook_error::spreader_signature);
static_assert(model_hook_errors<SpreaderWithoutActivity>() == hook_error::spreader_alone);
static_assert(model_hook_errors<AddressNotPointer>() == hook_error::contribution_address_signature);

using Memory = Kokkos::DefaultExecutionSpace::memory_space;

// Every built-in model keeps the contract (the engine would not compile them otherwise; this
// names the rule that broke).
TEST(ModelContract, BuiltInModelsKeepIt) {
  EXPECT_EQ(model_hook_errors<Seir<Memory>>(), 0u);
  EXPECT_EQ(model_hook_errors<Covid<Memory>>(), 0u);
  EXPECT_EQ(model_hook_errors<Opinion<Memory>>(), 0u);
  EXPECT_EQ((model_hook_errors<Consensus<float, Memory>>()), 0u);
  EXPECT_EQ((model_hook_errors<Consensus<herd::half, Memory>>()), 0u);
}

}  // namespace
