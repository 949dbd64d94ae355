#include "varlab/op_bar.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>

#include "run_palette.hpp"
#include "varlab/variable_form.hpp"
#include "varlab/varlab_text.hpp"

namespace distlab::ui {

namespace {
constexpr int kValuesPerRow = 4;

QDoubleSpinBox* valueSpinBox(QWidget* parent, double value) {
    auto* box = new QDoubleSpinBox(parent);
    box->setRange(-1e6, 1e6);
    box->setDecimals(3);
    box->setValue(value);
    box->setMinimumWidth(60);
    return box;
}

// A small square in the replica's colour, the same one its column and every other view use.
QLabel* replicaChip(int replica, QWidget* parent) {
    auto* chip = new QLabel(QStringLiteral("r%1").arg(replica), parent);
    const QColor color = replicaColor(replica);
    chip->setStyleSheet(QStringLiteral("QLabel { background: %1; color: %2; border-radius: 3px; padding: 1px 4px; "
                                       "font-weight: bold; }")
                            .arg(color.name(), color.lightness() > 150 ? QStringLiteral("black") : QStringLiteral("white")));
    return chip;
}

QLabel* caption(const QString& text, QWidget* parent) { return new QLabel(text, parent); }
}  // namespace

OpBar::OpBar(QWidget* parent) : QWidget(parent) {
    m_variable = new QComboBox(this);
    m_variable->setObjectName(QStringLiteral("varlabTargetBox"));
    m_variable->setMinimumContentsLength(6);
    m_context = new QComboBox(this);
    m_context->setObjectName(QStringLiteral("varlabContextBox"));
    for (const UpdateContext context : {UpdateContext::Replica, UpdateContext::CrossReplica}) {
        m_context->addItem(context == UpdateContext::Replica ? tr("replica") : tr("cross-replica"), static_cast<int>(context));
        m_context->setItemData(m_context->count() - 1, contextTip(context), Qt::ToolTipRole);
    }
    m_op = new QComboBox(this);
    m_op->setObjectName(QStringLiteral("varlabOpBox"));
    for (std::size_t i = 0; i < detail::kOpNames.size(); ++i) m_op->addItem(engineText(detail::kOpNames[i]), static_cast<int>(i));
    m_op->setCurrentIndex(static_cast<int>(VariableOp::AssignAdd));
    m_argument = new QComboBox(this);
    m_argument->setObjectName(QStringLiteral("varlabArgumentBox"));
    m_argument->addItem(tr("per-replica values"), static_cast<int>(Argument::PerReplica));
    m_argument->addItem(tr("same value on all"), static_cast<int>(Argument::SameOnEveryReplica));
    m_argument->setItemData(0, tr("A per-replica tensor: each replica passes its own value."), Qt::ToolTipRole);
    m_argument->setItemData(1, tr("The same value on every replica: a constant that is not per-replica (a non-distributed value)."),
                            Qt::ToolTipRole);

    m_argumentLabel = caption(tr("Argument"), this);

    // Four per row, so eight replicas fit a narrow tab.
    auto* grid = new QGridLayout();
    grid->setHorizontalSpacing(8);
    for (int i = 0; i < VariableForm::kMaxReplicas; ++i) {
        ReplicaValue value;
        value.container = new QWidget(this);
        value.box = valueSpinBox(value.container, i + 1);
        value.box->setObjectName(QStringLiteral("varlabReplicaValue%1").arg(i));
        value.box->setAccessibleName(tr("Replica %1's value").arg(i));
        auto* row = new QHBoxLayout(value.container);
        row->setContentsMargins(0, 0, 0, 0);
        row->setSpacing(3);
        row->addWidget(replicaChip(i, value.container));
        row->addWidget(value.box);
        grid->addWidget(value.container, i / kValuesPerRow, i % kValuesPerRow);
        m_perReplica.push_back(value);
    }
    m_valueContainer = new QWidget(this);
    m_value = valueSpinBox(m_valueContainer, 1.0);
    m_value->setObjectName(QStringLiteral("varlabValueBox"));
    auto* valueRow = new QHBoxLayout(m_valueContainer);
    valueRow->setContentsMargins(0, 0, 0, 0);
    valueRow->addWidget(caption(tr("value"), m_valueContainer));
    valueRow->addWidget(m_value);
    auto* values = new QHBoxLayout();
    values->addLayout(grid);
    values->addWidget(m_valueContainer);
    m_noArgument = caption(tr("a read takes no argument"), this);
    values->addWidget(m_noArgument);
    values->addStretch(1);
    m_apply = new QPushButton(tr("Apply"), this);
    m_apply->setObjectName(QStringLiteral("varlabApplyButton"));

    // Two rows of two choices, so the bar fits a narrow tab beside the docks.
    auto* choices = new QGridLayout();
    choices->addWidget(caption(tr("Variable"), this), 0, 0);
    choices->addWidget(m_variable, 0, 1);
    choices->addWidget(caption(tr("Context"), this), 0, 2);
    choices->addWidget(m_context, 0, 3);
    choices->addWidget(caption(tr("Op"), this), 1, 0);
    choices->addWidget(m_op, 1, 1);
    choices->addWidget(m_argumentLabel, 1, 2);
    choices->addWidget(m_argument, 1, 3);
    choices->setColumnStretch(4, 1);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setStyleSheet(QStringLiteral("QLabel { color: palette(dark); }"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(choices);
    layout->addLayout(values);
    auto* bottom = new QHBoxLayout();
    bottom->addWidget(m_hint, 1);
    bottom->addWidget(m_apply, 0, Qt::AlignTop);
    layout->addLayout(bottom);

    connect(m_apply, &QPushButton::clicked, this, &OpBar::applyRequested);
    for (QComboBox* box : {m_context, m_op, m_argument}) connect(box, &QComboBox::currentIndexChanged, this, &OpBar::updateEditors);
    connect(m_variable, &QComboBox::currentIndexChanged, this, [this] { emit targetChanged(target()); });
    updateEditors();
}

void OpBar::setVariables(const QStringList& names) {
    const QString previous = target();
    {
        const QSignalBlocker blocker(m_variable);
        m_variable->clear();
        m_variable->addItems(names);
        const qsizetype kept = names.indexOf(previous);
        m_variable->setCurrentIndex(kept >= 0 ? static_cast<int>(kept) : (names.isEmpty() ? -1 : 0));
    }
    if (target() != previous) emit targetChanged(target());
}

void OpBar::selectVariable(const QString& name) {
    const int index = m_variable->findText(name);
    if (index >= 0) m_variable->setCurrentIndex(index);
}

void OpBar::setReplicas(int replicas) {
    m_replicas = std::clamp(replicas, 1, VariableForm::kMaxReplicas);
    updateEditors();
}

QString OpBar::target() const { return m_variable->currentText(); }

UpdateContext OpBar::context() const { return static_cast<UpdateContext>(m_context->currentData().toInt()); }

VariableOp OpBar::op() const { return static_cast<VariableOp>(m_op->currentData().toInt()); }

bool OpBar::perReplica() const {
    return context() == UpdateContext::Replica && static_cast<Argument>(m_argument->currentData().toInt()) == Argument::PerReplica;
}

VariableOpRequest OpBar::request() const {
    VariableOpRequest request;
    request.context = context();
    request.op = op();
    if (request.op == VariableOp::Read) return request;
    request.perReplica = perReplica();
    if (request.perReplica) {
        for (int i = 0; i < m_replicas; ++i) request.values.push_back(m_perReplica[static_cast<std::size_t>(i)].box->value());
    } else {
        request.values.push_back(m_value->value());
    }
    return request;
}

void OpBar::updateEditors() {
    const bool read = op() == VariableOp::Read;
    const bool replica = context() == UpdateContext::Replica;
    m_argumentLabel->setVisible(!read && replica);
    m_argument->setVisible(!read && replica);
    for (int i = 0; i < VariableForm::kMaxReplicas; ++i)
        m_perReplica[static_cast<std::size_t>(i)].container->setVisible(!read && perReplica() && i < m_replicas);
    m_valueContainer->setVisible(!read && !perReplica());
    m_noArgument->setVisible(read);
    const QString noun = op() == VariableOp::Assign ? tr("new value") : tr("delta");
    if (read)
        m_hint->setText(replica ? tr("Each replica reads its own copy (or the single copy).")
                                : tr("One read for the whole variable: what TensorFlow returns outside a step."));
    else if (!replica)
        m_hint->setText(tr("Runs once for the whole strategy with one %1; aggregation is not involved "
                           "(except for sync-on-read variables).")
                            .arg(noun));
    else if (perReplica())
        m_hint->setText(tr("Each replica passes its own %1 (a per-replica tensor); aggregation decides how "
                           "they combine.")
                            .arg(noun));
    else
        m_hint->setText(tr("Every replica passes the same constant %1, which is not a per-replica value.").arg(noun));
}

}  // namespace distlab::ui
