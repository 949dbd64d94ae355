#include "panels/explain_panel.hpp"

#include <QApplication>
#include <QEvent>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "panels/explanations.hpp"

namespace distlab::ui {

ExplainPanel::ExplainPanel(QWidget* watched, QWidget* parent) : QWidget(parent), m_watched(watched) {
    m_text = new QTextBrowser(this);
    m_text->setObjectName(QStringLiteral("explainText"));
    m_text->setOpenExternalLinks(false);
    m_text->setHtml(
        tr("<h3>Explain</h3><p>Point at a control, or give it the keyboard focus, to read here what it "
           "does, when to use it and what it costs.</p><p>Start with the <b>Strategy</b> page of the "
           "Run set-up: choose <i>Mirrored</i>, four devices, press <b>Play</b> and open the "
           "<b>Replicas</b> and <b>Timeline</b> tabs.</p>"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_text);
    // Application-wide, so controls created later (table cells) are covered too; only two event types matter.
    qApp->installEventFilter(this);
}

ExplainPanel::~ExplainPanel() { qApp->removeEventFilter(this); }

bool ExplainPanel::showTopic(const QString& key) {
    if (key == m_topic) return true;
    const Explanation explanation = explanationFor(key);
    if (!explanation.valid()) return false;
    m_topic = key;
    m_text->setHtml(QStringLiteral("<h3>%1</h3>%2").arg(explanation.title.toHtmlEscaped(), explanation.body));
    return true;
}

bool ExplainPanel::eventFilter(QObject* object, QEvent* event) {
    if (event->type() == QEvent::Enter || event->type() == QEvent::FocusIn) {
        auto* widget = qobject_cast<QWidget*>(object);
        if (widget != nullptr && widget->window() == m_watched->window()) {
            const QString key = explainKeyOf(widget);
            if (!key.isEmpty()) showTopic(key);
        }
    }
    return false;
}

}  // namespace distlab::ui
