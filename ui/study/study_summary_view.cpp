#include "study/study_summary_view.hpp"

#include <QHeaderView>

#include <algorithm>

#include "study/study_charts.hpp"
#include "study/study_controller.hpp"

namespace distlab::ui {

namespace {
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
    connect(&m_controller, &StudyController::updated, this, &StudySummaryView::refresh);
}

StudyTable StudySummaryView::table() const {
    // The predicted columns only when the study was predicted (as distlab-cli compare --predict).
    const auto& predictions = m_controller.predictions();
    const bool predicted = std::any_of(predictions.begin(), predictions.end(), [](const auto& p) { return p.has_value(); }) ||
                           std::any_of(m_controller.predictionNotes().begin(), m_controller.predictionNotes().end(),
                                       [](const std::string& note) { return !note.empty(); });
    return makeStudyTable(m_controller.rows(), m_controller.study().baseline(),
                          predicted ? std::span<const std::optional<StepTimePrediction>>(predictions)
                                    : std::span<const std::optional<StepTimePrediction>>());
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
    setSortingEnabled(true);
    if (sortColumn >= 0 && sortColumn < columnCount()) sortItems(sortColumn, order);
}

}  // namespace distlab::ui
