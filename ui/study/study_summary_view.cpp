#include "study/study_summary_view.hpp"

#include <QHeaderView>
#include <QMenu>
#include <QSettings>

#include <algorithm>

#include "study/study_charts.hpp"
#include "study/study_controller.hpp"

namespace distlab::ui {

namespace {
const QString kHiddenColumnsKey = QStringLiteral("study/hiddenColumns");
const QString kNameColumn = QStringLiteral("variant");

// A cell that shows the table's own text ("1.000") and sorts by its number when it has one.
class SummaryCell : public QTableWidgetItem {
public:
    explicit SummaryCell(const QString& text) : QTableWidgetItem(text) {
        m_value = text.toDouble(&m_number);
        if (m_number) setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override {
        const auto* cell = dynamic_cast<const SummaryCell*>(&other);
        if (cell != nullptr && m_number && cell->m_number) return m_value < cell->m_value;
        if (cell != nullptr && m_number != cell->m_number) return m_number;  // unknown (empty) cells last
        return QTableWidgetItem::operator<(other);
    }

private:
    double m_value = 0.0;
    bool m_number = false;
};
}  // namespace

StudySummaryView::StudySummaryView(StudyController& controller, QWidget* parent) : QTableWidget(parent), m_controller(controller) {
    setObjectName(QStringLiteral("studySummary"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // the study's order until a header is clicked
    horizontalHeader()->setSortIndicatorShown(true);
    setSortingEnabled(true);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    verticalHeader()->setVisible(false);
    const QSettings settings;
    m_hidden = settings.contains(kHiddenColumnsKey) ? settings.value(kHiddenColumnsKey).toStringList() : defaultHiddenColumns();
    m_columnMenu = new QMenu(tr("Columns"), this);
    m_columnMenu->setObjectName(QStringLiteral("studyColumnsMenu"));
    connect(m_columnMenu, &QMenu::aboutToShow, this, &StudySummaryView::fillColumnMenu);
    horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    horizontalHeader()->setToolTip(tr("Click a heading to sort by it; right-click the headings to choose the columns shown"));
    connect(horizontalHeader(), &QHeaderView::customContextMenuRequested, this,
            [this](const QPoint& at) { m_columnMenu->popup(horizontalHeader()->viewport()->mapToGlobal(at)); });
    connect(&m_controller, &StudyController::updated, this, &StudySummaryView::refresh);
}

QStringList StudySummaryView::defaultHiddenColumns() {
    // Shown by default: the variant and its state, the measured step time with its prediction,
    // loss, accuracy, time to the target, speed and the communication share. A column not named
    // here (a new one) is shown, so nothing new goes unseen.
    return {QStringLiteral("steps"),           QStringLiteral("seconds"),        QStringLiteral("test_loss"),
            QStringLiteral("steps_to_target"), QStringLiteral("bytes_per_step"), QStringLiteral("peak_memory_mib"),
            QStringLiteral("compute_share"),   QStringLiteral("wait_share"),     QStringLiteral("optimizer_share")};
}

bool StudySummaryView::isColumnShown(const QString& name) const { return name == kNameColumn || !m_hidden.contains(name); }

void StudySummaryView::setColumnShown(const QString& name, bool shown) {
    if (name == kNameColumn || isColumnShown(name) == shown) return;
    if (shown)
        m_hidden.removeAll(name);
    else
        m_hidden.append(name);
    saveHiddenColumns();
    applyColumnVisibility();
}

void StudySummaryView::showDefaultColumns() {
    m_hidden = defaultHiddenColumns();
    QSettings().remove(kHiddenColumnsKey);
    applyColumnVisibility();
}

void StudySummaryView::saveHiddenColumns() const { QSettings().setValue(kHiddenColumnsKey, m_hidden); }

void StudySummaryView::applyColumnVisibility() {
    for (int c = 0; c < columnCount(); ++c)
        if (const QTableWidgetItem* heading = horizontalHeaderItem(c)) setColumnHidden(c, !isColumnShown(heading->text()));
}

void StudySummaryView::fillColumnMenu() {
    m_columnMenu->clear();
    // The columns of the table as it is now (the predicted ones only once the study is predicted).
    for (int c = 0; c < columnCount(); ++c) {
        const QTableWidgetItem* heading = horizontalHeaderItem(c);
        if (heading == nullptr) continue;
        const QString name = heading->text();
        QAction* action = m_columnMenu->addAction(name);
        action->setObjectName(QStringLiteral("column:") + name);
        action->setCheckable(true);
        action->setChecked(isColumnShown(name));
        action->setEnabled(name != kNameColumn);  // a row without its name says nothing
        connect(action, &QAction::toggled, this, [this, name](bool on) { setColumnShown(name, on); });
    }
    m_columnMenu->addSeparator();
    QAction* defaults = m_columnMenu->addAction(tr("Default columns"), this, &StudySummaryView::showDefaultColumns);
    defaults->setObjectName(QStringLiteral("defaultColumns"));
}

StudyTable StudySummaryView::table() const {
    // The predicted columns only when the study was predicted (as distlab-cli compare --predict).
    const auto& predictions = m_controller.predictions();
    const bool predicted = std::any_of(predictions.begin(), predictions.end(), [](const auto& p) { return p.has_value(); }) ||
                           std::any_of(m_controller.predictionNotes().begin(), m_controller.predictionNotes().end(),
                                       [](const std::string& note) { return !note.empty(); });
    return makeStudyTable(
        m_controller.rows(), m_controller.study().baseline(),
        predicted ? std::span<const std::optional<StepTimePrediction>>(predictions) : std::span<const std::optional<StepTimePrediction>>());
}

void StudySummaryView::refresh() {
    if (m_drawn == m_controller.version()) return;
    m_drawn = m_controller.version();
    const StudyTable shown = table();
    const int sortColumn = horizontalHeader()->sortIndicatorSection();
    const Qt::SortOrder order = horizontalHeader()->sortIndicatorOrder();
    setSortingEnabled(false);  // rows stay put while they are filled
    setColumnCount(static_cast<int>(shown.header.size()));
    setRowCount(static_cast<int>(shown.rows.size()));
    QStringList header;
    for (const std::string& name : shown.header) header.append(QString::fromStdString(name));
    setHorizontalHeaderLabels(header);
    for (int r = 0; r < rowCount(); ++r) {
        const auto& cells = shown.rows[static_cast<std::size_t>(r)];
        for (int c = 0; c < columnCount(); ++c) {
            const QString text = QString::fromStdString(cells[static_cast<std::size_t>(c)]);
            auto* item = new SummaryCell(text);
            item->setToolTip(text);
            if (c == 0) item->setForeground(StudyCharts::variantColor(r));
            if (r == m_controller.study().baseline()) {
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
            }
            setItem(r, c, item);
        }
    }
    applyColumnVisibility();
    setSortingEnabled(true);
    if (sortColumn >= 0 && sortColumn < columnCount()) sortItems(sortColumn, order);
}

}  // namespace distlab::ui
