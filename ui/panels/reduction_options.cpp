#include "panels/reduction_options.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>

#include "count_text.hpp"
#include "panels/explanation_label.hpp"
#include "panels/explanations.hpp"

namespace distlab::ui {

namespace {
constexpr int kDefaultBytesPerPack = 4096;

QString algorithmKey(CrossDeviceOps algorithm) {
    switch (algorithm) {
        case CrossDeviceOps::ReductionToOneDevice:
            return QStringLiteral("strategy.cross_device_ops.reduction_to_one_device");
        case CrossDeviceOps::HierarchicalCopy:
            return QStringLiteral("strategy.cross_device_ops.hierarchical_copy");
        case CrossDeviceOps::Tree:
            return QStringLiteral("strategy.cross_device_ops.tree");
        case CrossDeviceOps::Nccl:
            return QStringLiteral("strategy.cross_device_ops.nccl");
        case CrossDeviceOps::Ring:
            break;
    }
    return QStringLiteral("strategy.cross_device_ops.ring");
}
}  // namespace

ReductionOptions::ReductionOptions(QWidget* parent) : QWidget(parent) {
    m_algorithm = new QComboBox(this);
    m_algorithm->setObjectName(QStringLiteral("reductionBox"));
    // Ring first (the default on logical devices), then reduction to one device: the order tests and
    // saved settings rely on.
    m_algorithm->addItem(tr("Ring all-reduce"), static_cast<int>(CrossDeviceOps::Ring));
    m_algorithm->addItem(tr("Reduction to one device"), static_cast<int>(CrossDeviceOps::ReductionToOneDevice));
    m_algorithm->addItem(tr("Hierarchical copy"), static_cast<int>(CrossDeviceOps::HierarchicalCopy));
    m_algorithm->addItem(tr("Tree all-reduce"), static_cast<int>(CrossDeviceOps::Tree));
    m_algorithmText = explanationLabel(this);
    auto* ncclText = explanationLabel(this);
    ncclText->setText(firstParagraph(QStringLiteral("strategy.cross_device_ops.nccl")));
    setExplainKey(ncclText, QStringLiteral("strategy.cross_device_ops.nccl"));

    m_packing = new QComboBox(this);
    m_packing->setObjectName(QStringLiteral("packingBox"));
    m_packing->addItem(tr("Split into packs (num_packs)"));
    m_packing->addItem(tr("Bucket by bytes (bytes_per_pack)"));
    m_packs = new QSpinBox(this);
    m_packs->setObjectName(QStringLiteral("numPacksBox"));
    m_packs->setRange(1, kMaxPacks);
    setCountSuffix(*m_packs, tr("pack"), tr("packs"));
    setExplainKey(m_packs, QStringLiteral("strategy.num_packs"));
    m_bytes = new QSpinBox(this);
    m_bytes->setObjectName(QStringLiteral("bytesPerPackBox"));
    m_bytes->setRange(4, 1 << 30);
    m_bytes->setSingleStep(1024);
    m_bytes->setValue(kDefaultBytesPerPack);
    m_bytes->setSuffix(tr(" bytes"));
    setExplainKey(m_bytes, QStringLiteral("strategy.bytes_per_pack"));
    m_packingText = explanationLabel(this);

    m_form = new QFormLayout(this);
    m_form->setContentsMargins(0, 0, 0, 0);
    m_form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_form->addRow(tr("Reduction"), m_algorithm);
    m_form->addRow(m_algorithmText);
    m_form->addRow(ncclText);
    m_form->addRow(tr("Packing"), m_packing);
    m_form->addRow(tr("Packs"), m_packs);
    m_form->addRow(tr("Bytes per pack"), m_bytes);
    m_form->addRow(m_packingText);

    auto changed = [this] {
        updateExplanations();
        emit edited();
    };
    connect(m_algorithm, &QComboBox::currentIndexChanged, this, changed);
    connect(m_packing, &QComboBox::currentIndexChanged, this, changed);
    connect(m_packs, &QSpinBox::valueChanged, this, changed);
    connect(m_bytes, &QSpinBox::valueChanged, this, changed);
    updateExplanations();
}

bool ReductionOptions::byBytes() const { return m_packing->currentIndex() == 1; }

void ReductionOptions::setStrategy(const StrategyConfig& strategy) {
    m_shownAlgorithm = strategy.crossDeviceOps;
    const QSignalBlocker algorithmBlocker(m_algorithm);
    const QSignalBlocker packingBlocker(m_packing);
    const QSignalBlocker packsBlocker(m_packs);
    const QSignalBlocker bytesBlocker(m_bytes);
    m_algorithm->setCurrentIndex(std::max(0, m_algorithm->findData(static_cast<int>(strategy.crossDeviceOps))));
    m_packing->setCurrentIndex(strategy.bytesPerPack > 0 ? 1 : 0);
    m_packs->setValue(static_cast<int>(std::clamp<std::int64_t>(strategy.numPacks, 1, kMaxPacks)));
    if (strategy.bytesPerPack > 0) m_bytes->setValue(static_cast<int>(std::min<std::int64_t>(strategy.bytesPerPack, m_bytes->maximum())));
    updateExplanations();
}

void ReductionOptions::applyTo(StrategyConfig& strategy) const {
    const auto chosen = static_cast<CrossDeviceOps>(m_algorithm->currentData().toInt());
    const bool offered = m_algorithm->findData(static_cast<int>(m_shownAlgorithm)) >= 0;
    if (offered || m_algorithm->currentIndex() != 0)
        strategy.crossDeviceOps = chosen;
    else
        strategy.crossDeviceOps = m_shownAlgorithm;  // e.g. nccl from a file, left as it was
    if (byBytes()) {
        strategy.numPacks = 1;
        strategy.bytesPerPack = m_bytes->value();
    } else {
        // A file's num_packs above the box's range stays as it was until the box is changed.
        const bool untouched = m_packs->value() == kMaxPacks && strategy.numPacks > kMaxPacks;
        if (!untouched) strategy.numPacks = m_packs->value();
        strategy.bytesPerPack = 0;
    }
}

void ReductionOptions::updateExplanations() {
    const auto algorithm = static_cast<CrossDeviceOps>(m_algorithm->currentData().toInt());
    const QString key = algorithmKey(algorithm);
    setExplainKey(m_algorithm, key);
    m_algorithmText->setText(firstParagraph(key));
    const QString packingKey = byBytes() ? QStringLiteral("strategy.bytes_per_pack") : QStringLiteral("strategy.num_packs");
    setExplainKey(m_packing, packingKey);
    m_packingText->setText(firstParagraph(packingKey));
    m_form->setRowVisible(m_packs, !byBytes());
    m_form->setRowVisible(m_bytes, byBytes());
}

}  // namespace distlab::ui
