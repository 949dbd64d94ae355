#include "varlab/variable_form.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <array>

#include "varlab/varlab_text.hpp"

namespace distlab::ui {

namespace {
// Sized for ten characters rather than the longest choice, so the form fits a narrow column; the field
// still grows to show the whole choice when there is room, and the list always shows it.
void compact(QComboBox* box) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(10);
}

// A combo box listing the engine's spellings of an enum (item data = the enum's value).
template <typename Enum, std::size_t N, typename Tip>
QComboBox* enumBox(QWidget* parent, const std::array<std::string_view, N>& names, Tip tip) {
    auto* box = new QComboBox(parent);
    compact(box);
    for (std::size_t i = 0; i < N; ++i) {
        box->addItem(engineText(names[i]), static_cast<int>(i));
        box->setItemData(static_cast<int>(i), tip(static_cast<Enum>(i)), Qt::ToolTipRole);
    }
    return box;
}

template <typename Enum>
Enum current(const QComboBox& box) {
    return static_cast<Enum>(box.currentData().toInt());
}
}  // namespace

VariableForm::VariableForm(QWidget* parent) : QWidget(parent) {
    m_strategy = enumBox<VariableStrategy>(this, detail::kStrategyNames, strategyTip);
    m_strategy->setObjectName(QStringLiteral("varlabStrategyBox"));
    m_strategy->setCurrentIndex(static_cast<int>(VariableStrategy::Mirrored));
    m_replicas = new QSpinBox(this);
    m_replicas->setObjectName(QStringLiteral("varlabReplicasBox"));
    m_replicas->setRange(1, kMaxReplicas);
    m_replicas->setValue(2);
    m_replicas->setToolTip(tr("Replicas in sync: one copy each for mirrored and sync-on-read variables."));
    m_name = new QLineEdit(QStringLiteral("v"), this);
    m_name->setObjectName(QStringLiteral("varlabNameEdit"));
    m_name->setMaxLength(32);
    m_synchronization = enumBox<Synchronization>(this, detail::kSynchronizationNames, synchronizationTip);
    m_synchronization->setObjectName(QStringLiteral("varlabSynchronizationBox"));
    m_aggregation = enumBox<Aggregation>(this, detail::kAggregationNames, aggregationTip);
    m_aggregation->setObjectName(QStringLiteral("varlabAggregationBox"));
    m_dtype = new QComboBox(this);
    compact(m_dtype);
    m_dtype->setObjectName(QStringLiteral("varlabDTypeBox"));
    for (DType dtype : kLabDTypes) m_dtype->addItem(engineText(dtypeName(dtype)), static_cast<int>(dtype));
    m_initial = new QDoubleSpinBox(this);
    m_initial->setObjectName(QStringLiteral("varlabInitialBox"));
    m_initial->setRange(-1e6, 1e6);
    m_initial->setDecimals(3);
    m_initial->setValue(1.0);
    m_create = new QPushButton(tr("Create variable"), this);
    m_create->setObjectName(QStringLiteral("varlabCreateButton"));
    m_create->setDefault(true);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setStyleSheet(QStringLiteral("QLabel { color: palette(dark); }"));

    auto* form = new QFormLayout();
    form->setContentsMargins(0, 0, 0, 0);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // labels go above the fields in a narrow tab
    form->addRow(tr("Strategy"), m_strategy);
    form->addRow(tr("Replicas"), m_replicas);
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Synchronization"), m_synchronization);
    form->addRow(tr("Aggregation"), m_aggregation);
    form->addRow(tr("Data type"), m_dtype);
    form->addRow(tr("Initial value"), m_initial);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(m_create);
    layout->addWidget(m_hint);

    connect(m_create, &QPushButton::clicked, this, &VariableForm::createRequested);
    connect(m_name, &QLineEdit::returnPressed, this, &VariableForm::createRequested);
    for (QComboBox* box : {m_strategy, m_synchronization, m_aggregation})
        connect(box, &QComboBox::currentIndexChanged, this, &VariableForm::updateHints);
    updateHints();
}

VariableSpec VariableForm::spec() const {
    VariableSpec spec;
    spec.name = m_name->text().trimmed().toStdString();
    spec.synchronization = current<Synchronization>(*m_synchronization);
    spec.aggregation = current<Aggregation>(*m_aggregation);
    spec.dtype = current<DType>(*m_dtype);
    spec.initial = m_initial->value();
    return spec;
}

VariableStrategy VariableForm::strategy() const { return current<VariableStrategy>(*m_strategy); }

int VariableForm::replicas() const { return m_replicas->value(); }

void VariableForm::suggestName(const QStringList& taken) {
    const QString typed = m_name->text().trimmed();
    if (!typed.isEmpty() && !taken.contains(typed)) return;
    for (int round = 1;; ++round)
        for (const char* base : {"v", "w", "m", "s"}) {
            const QString name = round == 1 ? QString::fromLatin1(base) : QStringLiteral("%1%2").arg(base).arg(round);
            if (!taken.contains(name)) {
                m_name->setText(name);
                return;
            }
        }
}

void VariableForm::updateHints() {
    // one_device runs exactly one replica: the count is fixed rather than left to fail.
    const bool oneDevice = strategy() == VariableStrategy::OneDevice;
    if (oneDevice && m_replicas->isEnabled()) {
        m_replicasBeforeOneDevice = m_replicas->value();
        m_replicas->setValue(1);
    } else if (!oneDevice && !m_replicas->isEnabled()) {
        m_replicas->setValue(m_replicasBeforeOneDevice);
    }
    m_replicas->setEnabled(!oneDevice);
    m_strategy->setToolTip(strategyTip(strategy()));
    m_synchronization->setToolTip(synchronizationTip(current<Synchronization>(*m_synchronization)));
    m_aggregation->setToolTip(aggregationTip(current<Aggregation>(*m_aggregation)));
    m_hint->setText(strategyTip(strategy()) + QLatin1Char(' ') + synchronizationTip(current<Synchronization>(*m_synchronization)));
}

}  // namespace distlab::ui
