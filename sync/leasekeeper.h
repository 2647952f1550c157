// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "apiclient.h"
#include "localstore.h"

#include <QDateTime>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QTimer>
#include <functional>

namespace marquee::sync {

/**
 * @brief Keeps a till's leases (docs/sync.md, "The till's leases"): while online, for every show starting within
 * the window, it reads the till's leases of the show from the server (GET /api/v1/shows/{id}/leases, which also
 * says how many seats the till may keep leased), asks for `best: N` more where it has fewer than that, and gives
 * a lease back (DELETE) once `return_by` has passed, or a manager revoked it, and every sale made under it is
 * booked. Every request has its Idempotency-Key; a lease request is kept in the LocalStore before it is sent and
 * sent again with the same key and body until the server answers, so a lost answer never leases twice. Nothing
 * is renewed past a lease's expiry: a lease is never extended, only a new one asked for before `return_by`.
 *
 * Which seats the till may sell offline (sellableSeats) comes from the stored leases and the journal of offline
 * sales, so it survives restarts and needs no server.
 */
class LeaseKeeper : public QObject
{
    Q_OBJECT
public:
    struct Options {
        int windowSeconds = 3 * 3600;   ///< lease for shows starting within this long
        int refreshIntervalMs = 30000;  ///< while online: read, top up and give back this often
    };

    LeaseKeeper(LocalStore &store, ApiClient &api, QObject *parent = nullptr);
    LeaseKeeper(LocalStore &store, ApiClient &api, const Options &options, QObject *parent = nullptr);

    /** @brief The shows the till sells (`show_id`, `starts_at` as the catalogue sends them). */
    void setShows(const QList<QJsonObject> &shows);
    /** @brief The link is up (a pass now, then every refreshIntervalMs) or down (nothing is sent). */
    void setOnline(bool online);
    bool isOnline() const { return m_online; }
    /** @brief One pass now (or right after the one running). */
    void refresh();
    /** @brief A pass is running. */
    bool busy() const { return m_running; }

    /**
     * @brief The seats the till may sell offline at @p now, each with its lease: seats leased to it (the server's
     * last word) of a lease that is active and not expired, less every seat sold offline under that lease.
     */
    QHash<QString, QString> sellableSeats(qint64 showId, const QDateTime &now = QDateTime::currentDateTimeUtc());
    /** @brief The lease @p seatIds would be sold under (all of them sellable and of one lease), or empty. */
    QString leaseFor(qint64 showId, const QStringList &seatIds, const QDateTime &now = QDateTime::currentDateTimeUtc());

    /** @brief Adds fields to every new lease request (the device's public key, for a delegation). */
    void setRequestDecorator(std::function<void(QJsonObject &body)> decorate) { m_decorate = std::move(decorate); }
    /** @brief Called with every lease the server granted (to keep its delegation). */
    void setLeaseGranted(std::function<void(const QJsonObject &lease)> granted) { m_granted = std::move(granted); }

Q_SIGNALS:
    /** @brief What the store knows about the leases changed. */
    void leasesChanged();
    /** @brief A pass ended (@p complete: every show was read). */
    void refreshed(bool complete);

private:
    void nextShow();
    void readShow(qint64 showId, const QDateTime &startsAt);
    void returnDue(qint64 showId, QList<StoredLease> due, std::function<void()> done);
    void topUp(qint64 showId, int limit, std::function<void()> done);
    void sendRequest(const LeaseRequestRecord &request, std::function<void()> done);
    void keep(const QJsonObject &lease);
    void finishPass(bool complete);

    LocalStore &m_store;
    ApiClient &m_api;
    Options m_options;
    QList<QJsonObject> m_shows;
    bool m_online = false;
    bool m_running = false;
    bool m_again = false;
    bool m_passComplete = true;
    QList<QPair<qint64, QDateTime>> m_queue; // the shows of the running pass still to do
    QTimer m_timer;
    std::function<void(QJsonObject &)> m_decorate;
    std::function<void(const QJsonObject &)> m_granted;
};

/** @brief A lease as the store keeps it, from the server's JSON. */
StoredLease storedLease(const QJsonObject &lease);

} // namespace marquee::sync
