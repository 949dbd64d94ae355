#include "varlab/variable_card.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QToolButton>
#include <QVBoxLayout>

#include "run_palette.hpp"
#include "varlab/varlab_text.hpp"

namespace distlab::ui {

namespace {
// The parameter device holds no replica's copy: a neutral grey rather than a replica's colour.
const QColor kParameterDeviceColor = QColor::fromRgb(0x8c8c8c);
constexpr int kValueMinimumWidth = 30;        // px; "1" still gets a cell you can point at
constexpr std::size_t kLongCaptionsUpTo = 4;  // more copies get "r5" captions so 8 columns fit

QString rgba(QColor color, int alpha) {
    return QStringLiteral("rgba(%1, %2, %3, %4)").arg(color.red()).arg(color.green()).arg(color.blue()).arg(alpha);
}
}  // namespace

VariableCard::VariableCard(const DistributedVariable& variable, QWidget* parent)
    : QFrame(parent), m_nameText(QString::fromStdString(variable.spec().name)) {
    setObjectName(QStringLiteral("variableCard"));
    setCursor(Qt::PointingHandCursor);
    setToolTip(QString::fromStdString(variable.creationRule()));

    auto* name = new QLabel(m_nameText, this);
    name->setTextFormat(Qt::PlainText);
    QFont nameFont = name->font();
    nameFont.setBold(true);
    nameFont.setPointSizeF(nameFont.pointSizeF() + 2);
    name->setFont(nameFont);
    m_kind = new QLabel(kindTitle(variable.kind()), this);
    m_kind->setObjectName(QStringLiteral("kindBadge"));
    m_kind->setStyleSheet(
        QStringLiteral("QLabel#kindBadge { border: 1px solid palette(mid); border-radius: 8px; "
                       "padding: 1px 8px; background: palette(alternate-base); }"));
    const VariableSpec& spec = variable.spec();
    const QString sync = spec.synchronization == Synchronization::Auto
                             ? (variable.strategy() == VariableStrategy::OneDevice ? tr("auto") : tr("auto → on_write"))
                             : engineText(toString(spec.synchronization));
    const QString replicas = variable.replicas() == 1 ? tr("1 replica") : tr("%1 replicas").arg(variable.replicas());
    m_details = new QLabel(QStringLiteral("%1 · %2 · %3 · aggregation %4 · %5")
                               .arg(engineText(toString(variable.strategy())), replicas, sync, engineText(toString(spec.aggregation)),
                                    engineText(dtypeName(spec.dtype))),
                           this);
    m_details->setStyleSheet(QStringLiteral("QLabel { color: palette(dark); }"));
    m_details->setWordWrap(true);
    m_remove = new QToolButton(this);
    m_remove->setText(tr("Remove"));
    m_remove->setToolTip(tr("Remove %1 from the lab").arg(m_nameText));
    m_remove->setAutoRaise(true);
    auto* header = new QHBoxLayout();
    header->addWidget(name);
    header->addWidget(m_kind);
    header->addWidget(m_details, 1);
    header->addWidget(m_remove);

    // What a cross-replica read returns, beside the copies it is computed from.
    m_readCell = new QFrame(this);
    m_readCell->setObjectName(QStringLiteral("readCell"));
    m_readCell->setStyleSheet(
        QStringLiteral("QFrame#readCell { border: 1px dashed palette(dark); border-radius: 4px; }"
                       " QLabel { border: none; }"));
    auto* readCaption = new QLabel(tr("cross-replica read"), m_readCell);
    readCaption->setStyleSheet(QStringLiteral("QLabel { color: palette(dark); }"));
    m_readValue = new QLabel(m_readCell);
    QFont readFont = m_readValue->font();
    readFont.setPointSizeF(readFont.pointSizeF() + 5);
    readFont.setBold(true);
    m_readValue->setFont(readFont);
    m_readSource = new QLabel(m_readCell);
    auto* readLayout = new QVBoxLayout(m_readCell);
    readLayout->setContentsMargins(10, 4, 10, 6);
    readLayout->setSpacing(0);
    readLayout->addWidget(readCaption);
    readLayout->addWidget(m_readValue);
    readLayout->addWidget(m_readSource);
    m_divergence = new QLabel(this);
    m_divergence->setWordWrap(true);
    m_divergence->setStyleSheet(QStringLiteral("QLabel { color: #e08a1e; }"));
    m_divergence->setText(
        tr("⚠ The copies differ: with aggregation none, an update in replica context changes only each "
           "replica's local copy and nothing syncs them. A cross-replica read returns replica 0's copy."));
    m_divergence->hide();
    m_readError = new QLabel(this);
    m_readError->setWordWrap(true);
    m_readError->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(QLatin1String(kVarlabErrorColor)));
    m_readError->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 8, 10, 8);
    layout->addLayout(header);
    buildCells(variable);
    auto* cells = new QHBoxLayout();
    for (const Cell& cell : m_cells) cells->addWidget(cell.frame);
    auto* arrow = new QLabel(QStringLiteral("⇒"), this);
    arrow->setToolTip(tr("A cross-replica read of these copies returns"));
    cells->addWidget(arrow);
    cells->addWidget(m_readCell);
    cells->addStretch(1);
    layout->addLayout(cells);
    layout->addWidget(m_divergence);
    layout->addWidget(m_readError);
    connect(m_remove, &QToolButton::clicked, this, &VariableCard::removeRequested);
    updateFrameStyle();
    refresh(variable, {});
}

void VariableCard::buildCells(const DistributedVariable& variable) {
    const std::size_t copies = variable.copies().size();
    for (std::size_t i = 0; i < copies; ++i) {
        Cell cell;
        QString caption;
        cell.frame = new QFrame(this);
        cell.frame->setObjectName(QStringLiteral("copyCell"));
        if (variable.kind() == VariableKind::Aggregating) {
            cell.color = kParameterDeviceColor;
            caption = tr("single copy (parameter device)");
        } else if (variable.kind() == VariableKind::Plain) {
            cell.color = replicaColor(0);
            caption = tr("the one copy");
        } else {
            cell.color = replicaColor(static_cast<int>(i));
            caption = copies <= kLongCaptionsUpTo ? tr("replica %1").arg(i) : QStringLiteral("r%1").arg(i);
            cell.frame->setToolTip(tr("Replica %1's copy").arg(i));
        }
        cell.caption = new QLabel(caption, cell.frame);
        cell.value = new QLabel(cell.frame);
        cell.value->setMinimumWidth(kValueMinimumWidth);
        cell.value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        auto* cellLayout = new QVBoxLayout(cell.frame);
        cellLayout->setContentsMargins(copies <= kLongCaptionsUpTo ? 10 : 6, 4, copies <= kLongCaptionsUpTo ? 10 : 4, 6);
        cellLayout->setSpacing(0);
        cellLayout->addWidget(cell.caption);
        cellLayout->addWidget(cell.value);
        m_cells.push_back(cell);
    }
}

void VariableCard::refresh(const DistributedVariable& variable, const std::vector<bool>& changed) {
    const std::vector<double>& copies = variable.copies();
    bool differ = false;
    for (std::size_t i = 0; i < m_cells.size() && i < copies.size(); ++i) {
        const QString before = m_cells[i].value->text();
        m_cells[i].value->setText(valueText(variable, copies[i]));
        const bool isChanged = i < changed.size() && changed[i];
        styleCell(m_cells[i], isChanged);
        m_cells[i].value->setToolTip(isChanged ? tr("Changed by the last op (was %1)").arg(before) : QString());
        differ = differ || copies[i] != copies[0];
    }
    const VariableOpResult read = variable.readCrossReplica();
    if (read.ok && !read.readValues.empty()) {
        const QString value = valueText(variable, read.readValues[0]);
        m_readPlain = tr("Cross-replica read returns %1 (%2)").arg(value, readSourceText(variable));
        m_readValue->setText(value);
        m_readValue->setStyleSheet(QString());
        m_readSource->setText(readSourceText(variable));
        m_readSource->setStyleSheet(QStringLiteral("QLabel { color: palette(dark); }"));
    } else {
        m_readPlain = tr("Cross-replica read: error: %1").arg(QString::fromStdString(read.error));
        const QString red = QStringLiteral("QLabel { color: %1; }").arg(QLatin1String(kVarlabErrorColor));
        m_readValue->setText(tr("error"));
        m_readValue->setStyleSheet(red);
        m_readSource->setText(readSourceText(variable));
        m_readSource->setStyleSheet(red);
        m_readError->setText(tr("A cross-replica read fails: %1. Read in replica context, or create the "
                                "variable with sum, mean or only_first_replica.")
                                 .arg(QString::fromStdString(read.error)));
    }
    m_readError->setVisible(!read.ok);
    m_readCell->setToolTip(QString::fromStdString(read.rule));
    m_divergence->setVisible(differ && variable.kind() == VariableKind::Mirrored);
}

void VariableCard::styleCell(Cell& cell, bool changed) {
    if (cell.styled && cell.changed == changed) return;  // style sheets are costly to re-apply on every op
    cell.styled = true;
    cell.changed = changed;
    const QString border = changed ? QStringLiteral("2px solid %1").arg(cell.color.name()) : QStringLiteral("1px solid palette(mid)");
    const QString background = changed ? rgba(cell.color, 60) : QStringLiteral("palette(base)");
    cell.frame->setStyleSheet(QStringLiteral("QFrame#copyCell { border: %1; border-left: 6px solid %2; "
                                             "border-radius: 4px; background: %3; }")
                                  .arg(border, cell.color.name(), background));
    cell.caption->setStyleSheet(QStringLiteral("QLabel { color: palette(dark); border: none; background: transparent; }"));
    QFont font = cell.value->font();
    font.setPointSizeF(QFont().pointSizeF() + 5);
    font.setBold(changed);
    cell.value->setFont(font);
    cell.value->setStyleSheet(QStringLiteral("QLabel { border: none; background: transparent; }"));
}

void VariableCard::setSelected(bool selected) {
    m_selected = selected;
    updateFrameStyle();
}

void VariableCard::updateFrameStyle() {
    setStyleSheet(m_selected ? QStringLiteral("QFrame#variableCard { border: 2px solid palette(highlight); "
                                              "border-radius: 6px; background: palette(base); }")
                             : QStringLiteral("QFrame#variableCard { border: 1px solid palette(mid); "
                                              "border-radius: 6px; background: palette(base); }"));
}

QStringList VariableCard::copyTexts() const {
    QStringList texts;
    for (const Cell& cell : m_cells) texts.append(cell.value->text());
    return texts;
}

QColor VariableCard::copyColor(int index) const {
    return index >= 0 && index < static_cast<int>(m_cells.size()) ? m_cells[static_cast<std::size_t>(index)].color : QColor();
}

QList<bool> VariableCard::changedCopies() const {
    QList<bool> flags;
    for (const Cell& cell : m_cells) flags.append(cell.changed);
    return flags;
}

QString VariableCard::kindText() const { return m_kind->text(); }

QString VariableCard::readText() const { return m_readPlain; }

bool VariableCard::divergenceShown() const { return !m_divergence->isHidden(); }

void VariableCard::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) emit selectRequested();
    QFrame::mousePressEvent(event);
}

}  // namespace distlab::ui
