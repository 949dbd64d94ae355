#pragma once
// How mirrored replicas reduce their gradients, in the Strategy page: the cross-device algorithm
// (ring, reduction to one device, hierarchical copy, tree; NCCL is explained as GPU-only and not
// offered) and the packing (num_packs chunks, or bytes_per_pack buckets), each with what it costs
// (steps, bytes per device, latency terms) beside it. Emits edited() on any change; a change
// needs a new run (the main window asks). GUI thread only.
#include <QWidget>

#include <distlab/config/run_config.hpp>

class QComboBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace distlab::ui {

class ReductionOptions : public QWidget {
    Q_OBJECT

public:
    static constexpr int kMaxPacks = 8;

    explicit ReductionOptions(QWidget* parent = nullptr);

    /// Shows `strategy`'s cross_device_ops, num_packs and bytes_per_pack (emits nothing).
    void setStrategy(const StrategyConfig& strategy);
    /// Writes those keys into `strategy` (a loaded algorithm the box does not offer, such as nccl,
    /// is kept until another is picked).
    void applyTo(StrategyConfig& strategy) const;

    QComboBox& algorithmBox() const { return *m_algorithm; }
    QComboBox& packingBox() const { return *m_packing; }
    QSpinBox& packsBox() const { return *m_packs; }
    QSpinBox& bytesPerPackBox() const { return *m_bytes; }

signals:
    void edited();

private:
    void updateExplanations();
    bool byBytes() const;

    CrossDeviceOps m_shownAlgorithm = CrossDeviceOps::Ring;
    QFormLayout* m_form;
    QComboBox* m_algorithm;
    QLabel* m_algorithmText;
    QComboBox* m_packing;
    QSpinBox* m_packs;
    QSpinBox* m_bytes;
    QLabel* m_packingText;
};

}  // namespace distlab::ui
