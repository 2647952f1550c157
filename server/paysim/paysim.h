// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QAbstractHttpServer>
#include <QDateTime>
#include <QHash>
#include <QNetworkAccessManager>
#include <QUrl>

namespace marquee::paysim {

/** @brief Settings of one simulator process. */
struct PaySimConfig {
    QUrl webhookUrl;
    QByteArray secret;
    int slowMs = 3000;       ///< tok_slow: how long /pay takes to answer
    int lateMs = 20000;      ///< tok_late: how long after capture its webhook is sent
    int retryBaseMs = 200;   ///< first webhook retry delay; doubles per attempt
    int retryMaxMs = 10000;  ///< retry delay cap
};

/**
 * @brief A card provider in memory (intents live as long as the process): intents are created by the booking
 * server, paid by a card terminal with a test token, refunded and cancelled by the server. Every payment outcome
 * is announced by a signed webhook, retried with exponential backoff until the receiver answers 2xx.
 */
class PaySim : public QAbstractHttpServer
{
    Q_OBJECT
public:
    explicit PaySim(PaySimConfig config, QObject *parent = nullptr);

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    struct Intent {
        QString id;
        QString orderId;
        qint64 amountMinor = 0;
        QString currency;
        QString status; ///< requires_payment, succeeded, failed, canceled, refunded
        QString declineReason;
        QString refundId;
        qint64 refundedMinor = 0;
        QDateTime createdAt;
    };
    struct Reply {
        int status;
        QByteArray body;
    };
    Reply route(const QHttpServerRequest &request);
    QJsonObject intentJson(const Intent &intent) const;
    /** @brief Build a signed event for @p intent and deliver it @p copies times after @p delayMs. */
    void emitEvent(const Intent &intent, const QString &type, int delayMs, int copies);
    void deliver(QByteArray body, int attempt);

    PaySimConfig m_config;
    QHash<QString, Intent> m_intents;
    QNetworkAccessManager m_network;
};

} // namespace marquee::paysim
