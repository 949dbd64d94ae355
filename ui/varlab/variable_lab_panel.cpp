#include "varlab/variable_lab_panel.hpp"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QTimer>
#include <QPointer>
#include <QScrollBar>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

#include "varlab/op_bar.hpp"
#include "varlab/op_log.hpp"
#include "varlab/variable_card.hpp"
#include "varlab/variable_form.hpp"
#include "varlab/varlab_text.hpp"

namespace distlab::ui {

namespace {
QLabel* heading(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    return label;
}
}  // namespace

VariableLabPanel::VariableLabPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("variableLabPanel"));
    auto* intro = new QLabel(varlabIntroHtml(), this);
    intro->setWordWrap(true);
    intro->setTextFormat(Qt::RichText);

    auto* opGroup = new QGroupBox(tr("Apply an op"), this);
    m_opGroup = opGroup;
    m_opBar = new OpBar(opGroup);
    auto* opLayout = new QVBoxLayout(opGroup);
    opLayout->addWidget(m_opBar);
    // Cards, the op bar and the log each get their own part of the splitter: the cards keep at
    // least one card's height whatever the op bar and the log need.
    QWidget* cardsArea = buildCardsArea();
    cardsArea->setMinimumHeight(180);
    auto* right = new QSplitter(Qt::Vertical, this);
    right->addWidget(cardsArea);
    right->addWidget(opGroup);
    right->addWidget(buildLogArea());
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 0);
    right->setStretchFactor(2, 1);
    right->setChildrenCollapsible(false);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(buildSetupColumn());
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    split->setSizes({250, 750});
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(split, 1);

    connect(m_form, &VariableForm::createRequested, this,
            [this] { createVariable(m_form->spec(), m_form->strategy(), m_form->replicas()); });
    connect(m_opBar, &OpBar::applyRequested, this, [this] { applyOp(m_opBar->target(), m_opBar->request()); });
    connect(m_opBar, &OpBar::targetChanged, this, &VariableLabPanel::onTargetChanged);
    connect(m_clearLog, &QPushButton::clicked, this, &VariableLabPanel::clearLog);
    connect(m_reset, &QPushButton::clicked, this, &VariableLabPanel::resetAll);
    updateEmptyState();
}

VariableLabPanel::~VariableLabPanel() = default;

QWidget* VariableLabPanel::buildSetupColumn() {
    auto* column = new QWidget(this);
    auto* content = new QWidget(column);
    auto* formGroup = new QGroupBox(tr("New variable"), content);
    m_form = new VariableForm(formGroup);
    auto* formLayout = new QVBoxLayout(formGroup);
    formLayout->addWidget(m_form);
    auto* legend = new QLabel(tr("<b>Reading a card</b><br>One column per copy, striped in its replica's colour (the same colour in "
                                 "every view). Tinted cells changed in the last op. The dashed cell is what a cross-replica read "
                                 "returns now; hover it for the rule behind it."),
                              content);
    legend->setWordWrap(true);
    legend->setTextFormat(Qt::RichText);
    legend->setContentsMargins(4, 8, 4, 0);
    auto* contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addWidget(formGroup);
    contentLayout->addWidget(legend);
    contentLayout->addStretch(1);
    // Scrolls vertically when the tab is short, so the column never forces the window taller.
    auto* scroll = new QScrollArea(column);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(content);
    scroll->setMinimumWidth(content->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width());
    m_reset = new QPushButton(tr("Reset all"), column);
    m_reset->setObjectName(QStringLiteral("varlabResetButton"));
    m_reset->setToolTip(tr("Remove every variable and clear the log."));
    auto* layout = new QVBoxLayout(column);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_reset);
    return column;
}

QWidget* VariableLabPanel::buildCardsArea() {
    auto* area = new QWidget(this);
    auto* cards = new QWidget(area);
    m_cardsLayout = new QVBoxLayout(cards);
    m_emptyCards = new QLabel(tr("Create a variable to start: pick a strategy, the replicas, a synchronization and "
                                 "an aggregation on the left and press <b>Create variable</b>. Each variable appears "
                                 "here as a card with one column per replica."),
                              cards);
    m_emptyCards->setWordWrap(true);
    m_emptyCards->setAlignment(Qt::AlignCenter);
    m_emptyCards->setStyleSheet(QStringLiteral("QLabel { color: palette(mid); font-size: 11pt; padding: 24px; }"));
    m_cardsLayout->addWidget(m_emptyCards);
    m_cardsLayout->addStretch(1);
    auto* scroll = new QScrollArea(area);
    scroll->setObjectName(QStringLiteral("varlabCardsScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(cards);
    m_cardsScroll = scroll;
    auto* layout = new QVBoxLayout(area);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(heading(tr("Variables (click a card to target it)"), area));
    layout->addWidget(scroll, 1);
    return area;
}

QWidget* VariableLabPanel::buildLogArea() {
    auto* area = new QWidget(this);
    m_log = new OpLog(area);
    m_clearLog = new QPushButton(tr("Clear log"), area);
    m_clearLog->setObjectName(QStringLiteral("varlabClearLogButton"));
    auto* header = new QHBoxLayout();
    header->addWidget(heading(tr("Log, newest first"), area));
    header->addStretch(1);
    header->addWidget(m_clearLog);
    auto* layout = new QVBoxLayout(area);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(m_log, 1);
    return area;
}

bool VariableLabPanel::createVariable(const VariableSpec& spec, VariableStrategy strategy, int replicas) {
    const QString name = QString::fromStdString(spec.name);
    const QString title =
        tr("#%1 create %2 under %3 with %4: synchronization %5, aggregation %6, %7, initial %8")
            .arg(QString::number(m_entryNumber + 1), name.isEmpty() ? tr("(no name)") : name, engineText(toString(strategy)),
                 replicas == 1 ? tr("1 replica") : tr("%1 replicas").arg(replicas), engineText(toString(spec.synchronization)),
                 engineText(toString(spec.aggregation)), engineText(dtypeName(spec.dtype)), QString::number(spec.initial));
    if (name.isEmpty() || find(name) != nullptr) {
        logEntry(title, name.isEmpty() ? tr("error: a variable needs a name") : tr("error: %1 already exists").arg(name),
                 tr("the lab tells variables apart by name: pick another one or remove the old variable"), true);
        return false;
    }
    auto created = DistributedVariable::create(spec, strategy, replicas);
    if (!created.ok()) {
        logEntry(title, tr("error: %1; nothing was created").arg(QString::fromStdString(created.error().message)),
                 tr("TensorFlow rejects this variable when it is created (docs/semantics.md §1)"), true);
        return false;
    }
    auto* card = new VariableCard(*created, m_cardsLayout->parentWidget());
    m_cardsLayout->insertWidget(m_cardsLayout->count() - 1, card);  // above the stretch
    m_variables.push_back(LabVariable{std::move(created).value(), card});
    const DistributedVariable& variable = m_variables.back().variable;
    connect(card, &VariableCard::removeRequested, this, [this, name] { removeVariable(name); });
    connect(card, &VariableCard::selectRequested, this, [this, name] { m_opBar->selectVariable(name); });
    logEntry(title, tr("created a %1 variable, copies %2").arg(kindTitle(variable.kind()), valuesText(variable, variable.copies())),
             QString::fromStdString(variable.creationRule()), false);
    m_opBar->setVariables(variableNames());
    m_opBar->selectVariable(name);
    onTargetChanged(m_opBar->target());
    m_form->suggestName(variableNames());
    updateEmptyState();
    return true;
}

VariableOpResult VariableLabPanel::applyOp(const QString& name, const VariableOpRequest& request) {
    const QString title = tr("#%1 %2 · %3").arg(QString::number(m_entryNumber + 1), name, requestText(request));
    LabVariable* entry = find(name);
    if (entry == nullptr) {
        VariableOpResult missing;
        missing.error = tr("there is no variable named %1").arg(name).toStdString();
        logEntry(title, tr("error: %1").arg(QString::fromStdString(missing.error)), tr("create the variable first"), true);
        return missing;
    }
    DistributedVariable& variable = entry->variable;
    const std::vector<double> before = variable.copies();
    VariableOpResult result = variable.apply(request);
    std::vector<bool> changed(before.size(), false);
    for (std::size_t i = 0; i < before.size() && i < variable.copies().size(); ++i)
        changed[i] = result.ok && before[i] != variable.copies()[i];
    // Only the last op's changes stay highlighted.
    for (LabVariable& other : m_variables) other.card->refresh(other.variable, &other == entry ? changed : std::vector<bool>{});

    QString outcome;
    if (!result.ok) {
        outcome =
            tr("error: %1 · copies unchanged %2").arg(QString::fromStdString(result.error), valuesText(variable, result.replicaValues));
    } else if (request.op == VariableOp::Read && request.context == UpdateContext::CrossReplica) {
        outcome = tr("read returned %1 · copies %2")
                      .arg(valueText(variable, result.readValues.at(0)), valuesText(variable, result.replicaValues));
    } else if (request.op == VariableOp::Read) {
        outcome = tr("each replica read %1").arg(valuesText(variable, result.readValues));
    } else {
        outcome = tr("copies %1 → %2").arg(valuesText(variable, before), valuesText(variable, result.replicaValues));
    }
    logEntry(title, outcome, QString::fromStdString(result.rule), !result.ok);
    // The card the op changed stays in view: scrolled to once the cards' layout has settled (a
    // card created or resized just now has no final place yet).
    QTimer::singleShot(0, this, [this, changedCard = QPointer<QWidget>(entry->card)] {
        if (changedCard) m_cardsScroll->ensureWidgetVisible(changedCard, 0, 0);
    });
    return result;
}

bool VariableLabPanel::removeVariable(const QString& name) {
    const auto it = std::find_if(m_variables.begin(), m_variables.end(), [&](const LabVariable& v) { return v.card->name() == name; });
    if (it == m_variables.end()) return false;
    it->card->hide();
    it->card->deleteLater();  // the click that asked for the removal may still be on the stack
    m_variables.erase(it);
    logEntry(tr("#%1 removed %2").arg(QString::number(m_entryNumber + 1), name), tr("the variable and its copies are gone"), QString(),
             false);
    m_opBar->setVariables(variableNames());
    m_form->suggestName(variableNames());
    updateEmptyState();
    return true;
}

void VariableLabPanel::clearLog() { m_log->clearEntries(); }

void VariableLabPanel::resetAll() {
    for (LabVariable& entry : m_variables) {
        entry.card->hide();
        entry.card->deleteLater();
    }
    m_variables.clear();
    m_log->clearEntries();
    m_entryNumber = 0;
    m_opBar->setVariables({});
    m_form->suggestName({});
    updateEmptyState();
}

QStringList VariableLabPanel::variableNames() const {
    QStringList names;
    for (const LabVariable& entry : m_variables) names.append(entry.card->name());
    return names;
}

VariableCard* VariableLabPanel::card(const QString& variable) const {
    const LabVariable* entry = find(variable);
    return entry == nullptr ? nullptr : entry->card;
}

QStringList VariableLabPanel::copyTexts(const QString& variable) const {
    const VariableCard* found = card(variable);
    return found == nullptr ? QStringList() : found->copyTexts();
}

QList<bool> VariableLabPanel::changedCopies(const QString& variable) const {
    const VariableCard* found = card(variable);
    return found == nullptr ? QList<bool>() : found->changedCopies();
}

QString VariableLabPanel::kindText(const QString& variable) const {
    const VariableCard* found = card(variable);
    return found == nullptr ? QString() : found->kindText();
}

QString VariableLabPanel::readText(const QString& variable) const {
    const VariableCard* found = card(variable);
    return found == nullptr ? QString() : found->readText();
}

bool VariableLabPanel::cardInView(const QString& variable) const {
    const VariableCard* found = card(variable);
    if (found == nullptr || m_cardsScroll == nullptr) return false;
    const QWidget* viewport = m_cardsScroll->viewport();
    const QRect onViewport(found->mapTo(viewport, QPoint(0, 0)), found->size());
    return viewport->rect().contains(onViewport);
}

bool VariableLabPanel::divergenceShown(const QString& variable) const {
    const VariableCard* found = card(variable);
    return found != nullptr && found->divergenceShown();
}

QString VariableLabPanel::lastLogEntry() const { return m_log->entryText(0); }

bool VariableLabPanel::lastLogEntryIsError() const { return m_log->entryIsError(0); }

int VariableLabPanel::logEntryCount() const { return m_log->entryCount(); }

bool VariableLabPanel::emptyStateShown() const { return !m_emptyCards->isHidden(); }

VariableLabPanel::LabVariable* VariableLabPanel::find(const QString& name) {
    for (LabVariable& entry : m_variables)
        if (entry.card->name() == name) return &entry;
    return nullptr;
}

const VariableLabPanel::LabVariable* VariableLabPanel::find(const QString& name) const {
    for (const LabVariable& entry : m_variables)
        if (entry.card->name() == name) return &entry;
    return nullptr;
}

void VariableLabPanel::logEntry(const QString& title, const QString& outcome, const QString& rule, bool error) {
    ++m_entryNumber;
    m_log->addEntry(OpLog::Entry{title, outcome, rule, error});
}

void VariableLabPanel::onTargetChanged(const QString& name) {
    const LabVariable* target = find(name);
    for (const LabVariable& entry : m_variables) entry.card->setSelected(&entry == target);
    if (target != nullptr) m_opBar->setReplicas(target->variable.replicas());
}

void VariableLabPanel::updateEmptyState() {
    m_emptyCards->setVisible(m_variables.empty());
    m_opGroup->setEnabled(!m_variables.empty());
    m_opGroup->setToolTip(m_variables.empty() ? tr("Create a variable to apply ops to it.") : QString());
}

}  // namespace distlab::ui
