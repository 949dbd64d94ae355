#include "charts/stacked_bar_chart.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

#include "charts/chart_axis.hpp"
#include "run_palette.hpp"

namespace distlab::ui {

struct StackedBarChart::Impl {
    QChart* chart = nullptr;
    QChartView* view = nullptr;
    QHorizontalStackedBarSeries* series = nullptr;
    QBarCategoryAxis* categoryAxis = nullptr;
    QValueAxis* valueAxis = nullptr;
    std::map<QString, QBarSet*> sets;
    QStringList categories;
    bool hasValues = false;
};

StackedBarChart::StackedBarChart(QWidget* parent) : QWidget(parent), m_impl(std::make_unique<Impl>()) {
    m_impl->chart = new QChart();
    m_impl->chart->setTheme(darkPalette() ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_impl->chart->setBackgroundRoundness(0);
    m_impl->chart->setMargins(QMargins(4, 4, 4, 4));
    m_impl->chart->setAnimationOptions(QChart::NoAnimation);
    m_impl->chart->legend()->setAlignment(Qt::AlignBottom);
    QFont small = font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.85));
    m_impl->chart->legend()->setFont(small);
    QFont titleFont = font();
    titleFont.setBold(true);
    m_impl->chart->setTitleFont(titleFont);
    m_impl->series = new QHorizontalStackedBarSeries();
    m_impl->series->setBarWidth(0.7);
    m_impl->chart->addSeries(m_impl->series);
    m_impl->categoryAxis = new QBarCategoryAxis();
    m_impl->valueAxis = new QValueAxis();
    m_impl->valueAxis->setLabelFormat("%g");
    m_impl->categoryAxis->setLabelsFont(small);
    m_impl->valueAxis->setLabelsFont(small);
    m_impl->chart->addAxis(m_impl->categoryAxis, Qt::AlignLeft);
    m_impl->chart->addAxis(m_impl->valueAxis, Qt::AlignBottom);
    m_impl->series->attachAxis(m_impl->categoryAxis);
    m_impl->series->attachAxis(m_impl->valueAxis);
    m_impl->view = new QChartView(m_impl->chart, this);
    m_impl->view->setRenderHint(QPainter::Antialiasing, true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_impl->view);
    m_emptyLabel = new QLabel(this);
    m_emptyLabel->setAlignment(Qt::AlignCenter);
    m_emptyLabel->setWordWrap(true);
    m_emptyLabel->setAttribute(Qt::WA_TransparentForMouseEvents);
    m_emptyLabel->setStyleSheet(QStringLiteral("QLabel { color: palette(mid); font-size: 11pt; padding: 24px; }"));
    setMinimumSize(240, 160);
}

StackedBarChart::~StackedBarChart() = default;

void StackedBarChart::setTitle(const QString& title) { m_impl->chart->setTitle(title); }
void StackedBarChart::setValueAxisTitle(const QString& title) { m_impl->valueAxis->setTitleText(title); }

void StackedBarChart::setEmptyText(const QString& text) {
    m_emptyLabel->setText(text);
    m_emptyLabel->setVisible(!m_impl->hasValues);
}

void StackedBarChart::setCategories(const QStringList& categories) {
    if (categories == m_impl->categories) return;
    m_impl->categories = categories;
    // Horizontal bars list the first category at the bottom; reverse so replica 0 is on top.
    QStringList reversed(categories.rbegin(), categories.rend());
    m_impl->categoryAxis->clear();
    m_impl->categoryAxis->append(reversed);
    for (auto& [name, set] : m_impl->sets) {
        set->remove(0, set->count());
        for (qsizetype i = 0; i < categories.size(); ++i) set->append(0.0);
    }
    m_impl->hasValues = false;
    m_emptyLabel->setVisible(true);
}

QStringList StackedBarChart::seriesNames() const {
    QStringList names;
    for (const QBarSet* set : m_impl->series->barSets()) names.append(set->label());
    return names;
}

void StackedBarChart::setValues(const QString& name, const QList<qreal>& values, const QColor& color) {
    QBarSet*& set = m_impl->sets[name];
    if (set == nullptr) {
        set = new QBarSet(name);
        set->setColor(color);
        set->setBorderColor(color);
        for (qsizetype i = 0; i < m_impl->categories.size(); ++i) set->append(0.0);
        m_impl->series->append(set);
    }
    const qsizetype count = std::min(values.size(), m_impl->categories.size());
    for (qsizetype i = 0; i < count; ++i) {
        // Bars are listed bottom-up (see setCategories).
        const qsizetype index = m_impl->categories.size() - 1 - i;
        if (set->at(index) != values[i]) set->replace(index, values[i]);
    }
    m_valuesReceived += count;
    m_impl->hasValues = m_impl->hasValues || count > 0;
    m_emptyLabel->setVisible(!m_impl->hasValues);
}

void StackedBarChart::fitAxis() {
    double longest = 0.0;
    for (qsizetype i = 0; i < m_impl->categories.size(); ++i) {
        double total = 0.0;
        for (const auto& [name, set] : m_impl->sets) total += set->at(i);
        longest = std::max(longest, total);
    }
    if (longest <= 0.0) longest = 1.0;
    // Ticks on a 1-2-5 step (0, 0.005, 0.01, 0.015 rather than 0.00375, 0.0075, ...).
    double low = 0.0;
    double top = longest;
    const double step = ChartAxis::niceRange(low, top);
    m_impl->valueAxis->setRange(0.0, top);
    m_impl->valueAxis->setTickCount(std::clamp(static_cast<int>(std::lround(top / step)) + 1, 2, 11));
}

void StackedBarChart::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    m_emptyLabel->setGeometry(rect());
}

}  // namespace distlab::ui
