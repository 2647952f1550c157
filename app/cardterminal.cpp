// SPDX-License-Identifier: AGPL-3.0-or-later
#include "cardterminal.h"
#include "kioskapi.h"
#include "sync/apiclient.h"

namespace marquee::app {

SimulatedTerminal::SimulatedTerminal(const QUrl &paysim, QObject *parent)
    : CardTerminal(parent)
    , m_paysim(paysim)
    , m_provider(std::make_unique<sync::ApiClient>(paysim))
{
    m_provider->setTimeoutMs(15000);
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, [this] { finish(TerminalResult::Outcome::TimedOut, tr("No card was presented in time.")); });
}

SimulatedTerminal::~SimulatedTerminal() = default;

void SimulatedTerminal::startPayment(const QString &paymentIntentId, qint64, const QString &)
{
    m_intent = paymentIntentId;
    ++m_generation;
    m_timeout.start(m_timeoutMs);
}

void SimulatedTerminal::abort()
{
    if (busy())
        finish(TerminalResult::Outcome::Aborted);
}

void SimulatedTerminal::presentCard(const QString &cardToken)
{
    if (!busy())
        return;
    if (m_paysim.isEmpty()) {
        finish(TerminalResult::Outcome::Error, tr("The card terminal is not configured."));
        return;
    }
    const quint64 generation = m_generation;
    const QString path = QStringLiteral("/v1/intents/%1/pay").arg(QString::fromUtf8(QUrl::toPercentEncoding(m_intent)));
    // The same key for a retry of the same card on the same intent: paysim charges once.
    const QString key = m_intent + QLatin1Char('|') + cardToken + QLatin1Char('|') + QString::number(generation);
    m_provider->request(QStringLiteral("POST"), path, QJsonObject{{QStringLiteral("card_token"), cardToken}}, key,
                        [this, generation](const sync::ApiResult &result) {
        const ApiReply reply = KioskApi::classify(result);
        if (generation != m_generation || !busy())
            return; // aborted or timed out meanwhile; the server reconciles the intent
        if (reply.kind == ApiErrorKind::Offline) {
            finish(TerminalResult::Outcome::Error, tr("The card terminal cannot reach the card provider."));
            return;
        }
        const QJsonObject body = reply.object();
        const QString status = body.value(QStringLiteral("status")).toString();
        if (reply.ok() && status == QLatin1String("succeeded"))
            finish(TerminalResult::Outcome::Approved);
        else if (status == QLatin1String("failed") || reply.kind == ApiErrorKind::PaymentFailed)
            finish(TerminalResult::Outcome::Declined, body.value(QStringLiteral("decline_reason")).toString());
        else
            finish(TerminalResult::Outcome::Error, reply.message.isEmpty() ? reply.code : reply.message);
    });
}

void SimulatedTerminal::finish(TerminalResult::Outcome outcome, const QString &reason)
{
    m_timeout.stop();
    m_intent.clear();
    ++m_generation;
    Q_EMIT finished(TerminalResult{outcome, reason});
}

} // namespace marquee::app
