#pragma once
// The JSON spelling of every enum value of run_config.hpp, in the order the spec lists them.
// One table per enum so toString, fromString, the parser's "expected one of" lists and the writer
// share a single source of truth.
#include <distlab/config/run_config.hpp>

#include <array>
#include <string>
#include <string_view>

namespace distlab::run_config_detail {

template <typename E>
struct EnumName {
    E value;
    const char* name;
};

inline constexpr std::array<EnumName<Activation>, 5> kActivationNames{{{Activation::Linear, "linear"},
                                                                       {Activation::Relu, "relu"},
                                                                       {Activation::Tanh, "tanh"},
                                                                       {Activation::Sigmoid, "sigmoid"},
                                                                       {Activation::Gelu, "gelu"}}};
inline constexpr std::array<EnumName<LossKind>, 2> kLossNames{
    {{LossKind::SoftmaxCrossEntropy, "softmax_cross_entropy"}, {LossKind::MeanSquaredError, "mse"}}};
inline constexpr std::array<EnumName<InitKind>, 3> kInitNames{
    {{InitKind::GlorotUniform, "glorot_uniform"}, {InitKind::HeNormal, "he_normal"}, {InitKind::Zeros, "zeros"}}};
inline constexpr std::array<EnumName<DataSource>, 5> kDataSourceNames{{{DataSource::Synthetic, "synthetic"},
                                                                       {DataSource::Csv, "csv"},
                                                                       {DataSource::Idx, "idx"},
                                                                       {DataSource::FashionMnist, "fashion_mnist"},
                                                                       {DataSource::Random, "random"}}};
inline constexpr std::array<EnumName<SyntheticKind>, 6> kSyntheticKindNames{{{SyntheticKind::Circle, "circle"},
                                                                             {SyntheticKind::Xor, "xor"},
                                                                             {SyntheticKind::Gauss, "gauss"},
                                                                             {SyntheticKind::Spiral, "spiral"},
                                                                             {SyntheticKind::RegressionPlane, "regression_plane"},
                                                                             {SyntheticKind::RegressionGauss, "regression_gauss"}}};
inline constexpr std::array<EnumName<ParameterServerMode>, 2> kParameterServerModeNames{
    {{ParameterServerMode::Async, "async"}, {ParameterServerMode::Sync, "sync"}}};
inline constexpr std::array<EnumName<PartitionerConfig::Kind>, 3> kPartitionerNames{{{PartitionerConfig::Kind::Fixed, "fixed"},
                                                                                     {PartitionerConfig::Kind::MinSize, "min_size"},
                                                                                     {PartitionerConfig::Kind::MaxSize, "max_size"}}};
inline constexpr std::array<EnumName<AggregationMethod>, 2> kAggregationMethodNames{
    {{AggregationMethod::AddN, "add_n"}, {AggregationMethod::Tree, "tree"}}};
inline constexpr std::array<EnumName<OptimizerKind>, 2> kOptimizerNames{{{OptimizerKind::Sgd, "sgd"}, {OptimizerKind::Adam, "adam"}}};
inline constexpr std::array<EnumName<StrategyKind>, 8> kStrategyNames{{{StrategyKind::OneDevice, "one_device"},
                                                                       {StrategyKind::Mirrored, "mirrored"},
                                                                       {StrategyKind::CentralStorage, "central_storage"},
                                                                       {StrategyKind::ParameterServer, "parameter_server"},
                                                                       {StrategyKind::MultiWorkerMirrored, "multi_worker_mirrored"},
                                                                       {StrategyKind::ModelParallel, "model_parallel"},
                                                                       {StrategyKind::Pipeline, "pipeline"},
                                                                       {StrategyKind::TensorParallel, "tensor_parallel"}}};
inline constexpr std::array<EnumName<PipelineSchedule>, 4> kPipelineScheduleNames{{{PipelineSchedule::GPipe, "gpipe"},
                                                                                   {PipelineSchedule::OneFOneB, "1f1b"},
                                                                                   {PipelineSchedule::Interleaved, "interleaved"},
                                                                                   {PipelineSchedule::ZeroBubbleH1, "zb-h1"}}};
inline constexpr std::array<EnumName<CrossDeviceOps>, 5> kCrossDeviceOpsNames{
    {{CrossDeviceOps::ReductionToOneDevice, "reduction_to_one_device"},
     {CrossDeviceOps::HierarchicalCopy, "hierarchical_copy"},
     {CrossDeviceOps::Ring, "ring"},
     {CrossDeviceOps::Nccl, "nccl"},
     {CrossDeviceOps::Tree, "tree"}}};
inline constexpr std::array<EnumName<CollectiveImplementation>, 2> kCollectiveImplementationNames{
    {{CollectiveImplementation::Auto, "auto"}, {CollectiveImplementation::Ring, "ring"}}};
inline constexpr std::array<EnumName<StageBalance>, 2> kStageBalanceNames{
    {{StageBalance::MultiplyAccumulates, "multiply_accumulates"}, {StageBalance::Measured, "measured"}}};
inline constexpr std::array<EnumName<ClockMode>, 2> kClockNames{{{ClockMode::Wall, "wall"}, {ClockMode::Virtual, "virtual"}}};
inline constexpr std::array<EnumName<Precision>, 3> kPrecisionNames{
    {{Precision::Float32, "float32"}, {Precision::MixedFloat16, "mixed_float16"}, {Precision::MixedBfloat16, "mixed_bfloat16"}}};

/// The table's spelling of value, or "unknown" for a value outside the enum (a cast int).
template <typename E, std::size_t N>
const char* nameOf(const std::array<EnumName<E>, N>& table, E value) {
    for (const auto& entry : table) {
        if (entry.value == value) return entry.name;
    }
    return "unknown";
}

/// Looks text up in the table; false if it is not one of the spellings (exact, case-sensitive).
template <typename E, std::size_t N>
bool valueOf(const std::array<EnumName<E>, N>& table, std::string_view text, E& value) {
    for (const auto& entry : table) {
        if (text == entry.name) {
            value = entry.value;
            return true;
        }
    }
    return false;
}

/// "a, b, c": every spelling of the table, for "expected one of" messages.
template <typename E, std::size_t N>
std::string namesList(const std::array<EnumName<E>, N>& table) {
    std::string list;
    for (const auto& entry : table) {
        if (!list.empty()) list += ", ";
        list += entry.name;
    }
    return list;
}

}  // namespace distlab::run_config_detail
