// SPDX-License-Identifier: AGPL-3.0-or-later
#include "deskcontroller.h"
#include "applogging.h"
#include "core/isotime.h"
#include "core/money.h"
#include "venueclock.h"
#include "staffsingleton.h"
#include "tillsupport.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QQmlEngine>
#include <QStandardPaths>
#include <QTimeZone>
#include <QRegularExpression>
#include <QUrlQuery>

namespace marquee::app {

namespace {
using Kind = JsonTableModel::Kind;

QString str(const QJsonObject &object, const char *key)
{
    return object.value(QLatin1String(key)).toVariant().toString();
}

/**
 * @brief A refund of GET /api/v1/reports/refunds in the desk's words: kind_text, reason_text, by, device,
 * status_text and reference (the booking, or the order a payment was returned for without one).
 */
QList<std::pair<QString, QString>> refundTexts(const QJsonObject &refund)
{
    const QString kind = str(refund, "kind");
    const QString reason = str(refund, "reason");
    const QString finder = str(refund, "found_by");
    const QString kindText = kind == QLatin1String("override")     ? DeskController::tr("override")
                             : kind == QLatin1String("staff")      ? DeskController::tr("staff cancel")
                             : kind == QLatin1String("till")       ? DeskController::tr("till cancel")
                             : kind == QLatin1String("reconciler") ? DeskController::tr("reconciler")
                             : kind == QLatin1String("provider")   ? DeskController::tr("refunded at the provider")
                             : kind == QLatin1String("hold_lost")  ? DeskController::tr("hold lost")
                                                                   : kind;
    const QString reasonText = reason == QLatin1String("hold_lost")           ? DeskController::tr("paid too late")
                               : reason == QLatin1String("booking_cancelled") ? DeskController::tr("(no reason given)")
                                                                              : reason;
    QString by;
    if (refund.value(QStringLiteral("automatic")).toBool()) {
        by = finder == QLatin1String("confirm")        ? DeskController::tr("server (confirm)")
             : finder == QLatin1String("webhook")      ? DeskController::tr("server (webhook)")
             : finder == QLatin1String("reconciler")   ? DeskController::tr("server (reconciler)")
             : finder == QLatin1String("hold_release") ? DeskController::tr("server (release)")
             : finder == QLatin1String("provider")     ? DeskController::tr("payment provider")
                                                       : DeskController::tr("server");
    } else if (!str(refund, "actor_name").isEmpty()) {
        by = QStringLiteral("%1 (%2)").arg(str(refund, "actor_name"), str(refund, "actor_role"));
    } else {
        by = str(refund, "device_name");
    }
    // Where it was asked; for the server's own refunds (and staff signed in without a device), where it was sold.
    const QString device = !str(refund, "device_name").isEmpty() ? str(refund, "device_name")
                           : !str(refund, "sold_on_device").isEmpty() ? DeskController::tr("%1 (sale)").arg(str(refund, "sold_on_device"))
                                                                      : QStringLiteral("—");
    const QString reference = !str(refund, "booking_ref").isEmpty() ? str(refund, "booking_ref")
                                                                    : DeskController::tr("order %1").arg(str(refund, "order_id").left(6));
    return {{QStringLiteral("kind_text"), kindText},
            {QStringLiteral("reason_text"), reasonText},
            {QStringLiteral("by"), by},
            {QStringLiteral("device"), device},
            {QStringLiteral("status_text"), str(refund, "status") == QLatin1String("succeeded") ? DeskController::tr("refunded") : DeskController::tr("pending")},
            {QStringLiteral("reference"), reference}};
}

QList<JsonTableModel::Column> salesColumns(const QString &keyTitle, Kind keyKind = Kind::Text)
{
    return {{QStringLiteral("label"), keyTitle, keyKind, 240},
            {QStringLiteral("bookings"), DeskController::tr("Bookings"), Kind::Integer, 120},
            {QStringLiteral("tickets"), DeskController::tr("Tickets"), Kind::Integer, 100},
            {QStringLiteral("revenue_minor"), DeskController::tr("Revenue"), Kind::Money, 130},
            {QStringLiteral("refunds"), DeskController::tr("Refunds"), Kind::Integer, 120},
            {QStringLiteral("refunds_minor"), DeskController::tr("Refunded"), Kind::Money, 130},
            {QStringLiteral("net_minor"), DeskController::tr("Net"), Kind::Money, 130}};
}
} // namespace

DeskController::DeskController(const AppConfig &config, QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_session(new StaffSession(config.server, {QStringLiteral("manager"), QStringLiteral("admin")}, this))
    , m_salesByDay(new JsonTableModel(this))
    , m_salesByShow(new JsonTableModel(this))
    , m_salesByMovie(new JsonTableModel(this))
    , m_salesByChannel(new JsonTableModel(this))
    , m_salesByDevice(new JsonTableModel(this))
    , m_shows(new JsonTableModel(this))
    , m_refunds(new JsonTableModel(this))
    , m_devices(new JsonTableModel(this))
    , m_reconciliation(new JsonTableModel(this))
    , m_audit(new JsonTableModel(this))
    , m_shifts(new JsonTableModel(this))
    , m_occupancyMap(new SeatMapModel(this))
{
    applyLanguage(m_translator, config.language); // first: the column titles below are translated
    m_session->setDeviceToken(config.token);
    m_session->setTimeoutMs(config.requestTimeoutMs);
    m_session->setLockAfterSeconds(900);
    m_leases = new DeskLeases(m_session, m_shows, m_devices, this); // the leases page (its own class: DeskLeases)
    m_to = QDate::currentDate();
    m_from = m_to.addDays(-13);
    m_salesByDay->setColumns(salesColumns(tr("Day")));
    m_salesByShow->setColumns(salesColumns(tr("Show")));
    m_salesByMovie->setColumns(salesColumns(tr("Movie")));
    m_salesByChannel->setColumns(salesColumns(tr("Channel")));
    m_salesByDevice->setColumns(salesColumns(tr("Device")));
    // Together as wide as the table beside the show editor at 1920 pixels (DeskShows.qml), so the prices of two
    // tiers are not cut off at the panel's edge (a narrower window scrolls sideways).
    m_shows->setColumns({{QStringLiteral("show_id"), tr("Show", "the column of show numbers"), Kind::Integer, 70},
                         {QStringLiteral("title"), tr("Movie"), Kind::Text, 210},
                         {QStringLiteral("starts_at"), tr("Starts"), Kind::Time, 160},
                         {QStringLiteral("screen_name"), tr("Screen"), Kind::Text, 90},
                         {QStringLiteral("capacity"), tr("Seats"), Kind::Integer, 66},
                         {QStringLiteral("sold"), tr("Sold"), Kind::Integer, 66},
                         {QStringLiteral("held"), tr("Held"), Kind::Integer, 66},
                         {QStringLiteral("occupancy"), tr("Full"), Kind::Percent, 66},
                         {QStringLiteral("prices"), tr("Prices"), Kind::Text, 290},
                         {QStringLiteral("waiting_room"), tr("Waiting room"), Kind::Bool, 100}});
    // Every refund of the range from GET /api/v1/reports/refunds: staff's and the server's own.
    // Up to Show as wide as the dashboard's table at 1920 pixels, so the figures a manager checks first are never cut
    // off; the devices and the full order id (for the CSV) are a scroll away.
    m_refunds->setColumns({{QStringLiteral("requested_at"), tr("When"), Kind::Time, 160},
                           {QStringLiteral("kind_text"), tr("Kind"), Kind::Text, 115},
                           {QStringLiteral("amount_minor"), tr("Amount"), Kind::Money, 85},
                           {QStringLiteral("status_text"), tr("Status"), Kind::Text, 90},
                           {QStringLiteral("payment_method"), tr("Paid by"), Kind::Text, 80},
                           {QStringLiteral("reference"), tr("Booking"), Kind::Text, 125},
                           {QStringLiteral("reason_text"), tr("Reason"), Kind::Text, 150},
                           {QStringLiteral("by"), tr("By"), Kind::Text, 160},
                           {QStringLiteral("title"), tr("Show"), Kind::Text, 130},
                           {QStringLiteral("device"), tr("Device"), Kind::Text, 125},
                           {QStringLiteral("order_id"), tr("Order"), Kind::Text, 300}});
    // Wide enough for every header (the reconciliation titles were cut off) and together no wider than the desk's
    // table at 1920 pixels; device names and times give up the room they did not use.
    m_devices->setColumns({{QStringLiteral("name"), tr("Device"), Kind::Text, 150},
                           {QStringLiteral("role"), tr("Role"), Kind::Text, 70},
                           {QStringLiteral("health"), tr("Health"), Kind::Text, 100},
                           {QStringLiteral("last_seen_at"), tr("Last seen"), Kind::Time, 160},
                           {QStringLiteral("queue_length"), tr("Queue", "the column of queued offline actions"), Kind::Integer, 80},
                           {QStringLiteral("printer_state"), tr("Printer"), Kind::Text, 100},
                           {QStringLiteral("app_version"), tr("Version"), Kind::Text, 80},
                           {QStringLiteral("reconciled_at"), tr("Reconciled"), Kind::Time, 160},
                           {QStringLiteral("tickets_reconciled"), tr("Tickets ok / void / ?"), Kind::Text, 185},
                           {QStringLiteral("payments_reconciled"), tr("Payments ok / refund / open"), Kind::Text, 230},
                           {QStringLiteral("reconciliation_problems"), tr("Problems"), Kind::Integer, 105},
                           {QStringLiteral("enrolled_at"), tr("Enrolled"), Kind::Time, 160}});
    m_reconciliation->setColumns({{QStringLiteral("waiting_for"), tr("Waiting for"), Kind::Text, 130},
                                  {QStringLiteral("state"), tr("State"), Kind::Text, 150},
                                  {QStringLiteral("updated_at"), tr("Since"), Kind::Time, 160},
                                  {QStringLiteral("amount_minor"), tr("Amount"), Kind::Money, 100},
                                  {QStringLiteral("payment_method"), tr("Paid by"), Kind::Text, 80},
                                  {QStringLiteral("channel"), tr("Channel"), Kind::Text, 95},
                                  {QStringLiteral("show_id"), tr("Show", "the column of show numbers"), Kind::Integer, 70},
                                  {QStringLiteral("refund_reason"), tr("Refund reason"), Kind::Text, 200},
                                  {QStringLiteral("order_id"), tr("Order"), Kind::Text, 300}});
    m_audit->setColumns({{QStringLiteral("at"), tr("When"), Kind::Time, 170},
                         {QStringLiteral("actor_name"), tr("Who"), Kind::Text, 140},
                         {QStringLiteral("actor_role"), tr("Role"), Kind::Text, 90},
                         {QStringLiteral("device_id"), tr("Device"), Kind::Integer, 90},
                         {QStringLiteral("action"), tr("Action"), Kind::Text, 200},
                         {QStringLiteral("target"), tr("Target"), Kind::Text, 220},
                         {QStringLiteral("reason"), tr("Reason"), Kind::Text, 240}});
    m_shifts->setColumns({{QStringLiteral("opened_at"), tr("Opened"), Kind::Time, 170},
                          {QStringLiteral("cashier"), tr("Cashier"), Kind::Text, 140},
                          {QStringLiteral("closed_at"), tr("Closed"), Kind::Time, 170},
                          {QStringLiteral("opening_float_minor"), tr("Float"), Kind::Money, 110},
                          {QStringLiteral("expected_cash_minor"), tr("Expected"), Kind::Money, 110},
                          {QStringLiteral("counted_cash_minor"), tr("Counted"), Kind::Money, 110},
                          {QStringLiteral("over_short_minor"), tr("Over/short"), Kind::Money, 110}});
    connect(m_session, &StaffSession::signedInChanged, this, [this] {
        if (m_session->signedIn()) {
            setPage(QStringLiteral("dashboard"));
            refresh();
        } else {
            setPage(QStringLiteral("signin"));
        }
    });
}

DeskController::~DeskController()
{
    StaffSingleton<DeskController>::forget(this);
}

void DeskController::setInstance(DeskController *controller)
{
    StaffSingleton<DeskController>::set(controller);
}

DeskController *DeskController::create(QQmlEngine *, QJSEngine *)
{
    return StaffSingleton<DeskController>::forQml(QStringLiteral("manager"));
}

void DeskController::setPage(const QString &page)
{
    if (m_page == page || (page != QLatin1String("signin") && !m_session->signedIn()))
        return;
    m_page = page;
    Q_EMIT pageChanged();
    // A notice is about what was done on the page that raised it ("House hold released…"); on another page it
    // would read as news about that page.
    setMessage({});
}

void DeskController::setMessage(const QString &message, bool error)
{
    m_message = message;
    m_messageIsError = error;
    Q_EMIT messageChanged();
}

void DeskController::begin()
{
    if (m_pending++ == 0)
        Q_EMIT busyChanged();
}

void DeskController::end()
{
    if (m_pending > 0 && --m_pending == 0)
        Q_EMIT busyChanged();
}

void DeskController::failed(const ApiReply &reply, const QString &what)
{
    if (m_session->handleUnauthorized(reply))
        return;
    if (reply.kind == ApiErrorKind::Offline)
        setMessage(tr("%1: the server cannot be reached.").arg(what), true);
    else if (reply.status == 404 && reply.code == QLatin1String("not_found"))
        setMessage(tr("%1: this server does not offer it yet.").arg(what), true);
    else
        setMessage(tr("%1: %2").arg(what, reply.message.isEmpty() ? reply.code : reply.message), true);
}

QString DeskController::exportDir() const
{
    const QString base = m_config.printDir.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation) : m_config.printDir;
    return base + QStringLiteral("/marquee-exports");
}

QString DeskController::rangeQuery() const
{
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("from"), fromDate());
    query.addQueryItem(QStringLiteral("to"), toDate());
    return query.toString(QUrl::FullyEncoded);
}

bool DeskController::setRange(const QString &from, const QString &to)
{
    const QDate start = QDate::fromString(from.trimmed(), Qt::ISODate);
    const QDate finish = QDate::fromString(to.trimmed(), Qt::ISODate);
    if (!start.isValid() || !finish.isValid() || start > finish) {
        setMessage(tr("Choose a range with valid dates, the first not after the last (YYYY-MM-DD)."), true);
        return false;
    }
    m_from = start;
    m_to = finish;
    Q_EMIT rangeChanged();
    refresh();
    return true;
}

void DeskController::setLastDays(int days)
{
    const QDate today = QDate::currentDate();
    setRange(today.addDays(-(qMax(1, days) - 1)).toString(Qt::ISODate), today.toString(Qt::ISODate));
}

void DeskController::refresh()
{
    if (!m_session->signedIn())
        return;
    setMessage({});
    loadSales(QStringLiteral("day"), m_salesByDay);
    loadSales(QStringLiteral("show"), m_salesByShow);
    loadSales(QStringLiteral("movie"), m_salesByMovie);
    loadSales(QStringLiteral("channel"), m_salesByChannel);
    loadSales(QStringLiteral("device"), m_salesByDevice);
    loadShows();
    loadDevices();
    loadReconciliation();
    loadRefunds();
    loadAudit();
    loadShifts();
}

void DeskController::loadSales(const QString &groupBy, JsonTableModel *model)
{
    KioskApi *api = m_session->api();
    begin();
    model->setLoading(true);
    api->get(QStringLiteral("/api/v1/reports/sales?group_by=%1&%2").arg(groupBy, rangeQuery()), this, [this, model, groupBy](const ApiReply &reply) {
        end();
        model->setLoading(false);
        if (!reply.ok()) {
            model->setErrorString(reply.message.isEmpty() ? reply.code : reply.message);
            model->setRows({});
            failed(reply, tr("Sales report"));
            computeTotals();
            return;
        }
        model->setErrorString({});
        QJsonArray rows = reply.object().value(QStringLiteral("rows")).toArray();
        if (groupBy == QLatin1String("day")) {
            // Every day of the range gets a row, so the chart shows quiet days as zero instead of skipping them.
            QHash<QString, QJsonObject> byDay;
            QString currency;
            for (const QJsonValue &row : std::as_const(rows)) {
                byDay.insert(str(row.toObject(), "key"), row.toObject());
                currency = str(row.toObject(), "currency");
            }
            QJsonArray filled;
            for (QDate day = m_from; day <= m_to; day = day.addDays(1)) {
                const QString key = day.toString(Qt::ISODate);
                QJsonObject row = byDay.value(key);
                if (row.isEmpty())
                    row = {{QStringLiteral("key"), key}, {QStringLiteral("bookings"), 0}, {QStringLiteral("tickets"), 0},
                           {QStringLiteral("revenue_minor"), 0}, {QStringLiteral("refunds"), 0}, {QStringLiteral("refunds_minor"), 0},
                           {QStringLiteral("net_minor"), 0}, {QStringLiteral("currency"), currency}};
                row.insert(QStringLiteral("label"), QLocale().toString(day, tr("ddd d MMM", "date format")));
                row.insert(QStringLiteral("short_label"), QLocale().toString(day, QStringLiteral("d.M.")));
                filled.append(row);
            }
            rows = filled;
        }
        // What the charts draw and say, worked out here by the currency's exponent: whole major units for bar
        // heights (integer division, a chart needs no cents) and the formatted amount for labels.
        for (qsizetype i = 0; i < rows.size(); ++i) {
            QJsonObject row = rows.at(i).toObject();
            const qint64 revenue = row.value(QStringLiteral("revenue_minor")).toInteger();
            const QString currency = str(row, "currency");
            qint64 unit = 1;
            for (int e = 0; e < currencyExponent(currency); ++e)
                unit *= 10;
            row.insert(QStringLiteral("revenue_major"), revenue / unit);
            row.insert(QStringLiteral("revenue_text"), formatMoney(revenue, currency.isEmpty() ? m_totals.value(QStringLiteral("currency")).toString() : currency));
            rows[i] = row;
        }
        model->setRows(rows);
        if (groupBy == QLatin1String("day"))
            computeTotals();
    });
}

void DeskController::computeTotals()
{
    qint64 revenue = 0, refunds = 0, net = 0, tickets = 0, bookings = 0, refundCount = 0;
    QString currency;
    for (int i = 0; i < m_salesByDay->count(); ++i) {
        const QVariantMap row = m_salesByDay->rowAt(i);
        revenue += row.value(QStringLiteral("revenue_minor")).toLongLong();
        refunds += row.value(QStringLiteral("refunds_minor")).toLongLong();
        net += row.value(QStringLiteral("net_minor")).toLongLong();
        tickets += row.value(QStringLiteral("tickets")).toLongLong();
        bookings += row.value(QStringLiteral("bookings")).toLongLong();
        refundCount += row.value(QStringLiteral("refunds")).toLongLong();
        if (currency.isEmpty())
            currency = row.value(QStringLiteral("currency")).toString();
    }
    if (currency.isEmpty())
        currency = QStringLiteral("EUR");
    m_totals = {{QStringLiteral("revenue"), formatMoney(revenue, currency)},
                {QStringLiteral("revenue_minor"), revenue},
                {QStringLiteral("refunds"), formatMoney(refunds, currency)},
                {QStringLiteral("refunds_minor"), refunds},
                {QStringLiteral("refund_count"), refundCount},
                {QStringLiteral("net"), formatMoney(net, currency)},
                {QStringLiteral("net_minor"), net},
                {QStringLiteral("tickets"), tickets},
                {QStringLiteral("bookings"), bookings},
                {QStringLiteral("average"), formatMoney(tickets > 0 ? revenue / tickets : 0, currency)},
                // Refunds of payments that never became a booking (a lost hold): in the Refunds table, not in the
                // sales figures (there was no sale to take them from).
                {QStringLiteral("unbooked_refund_count"), m_unbookedRefunds},
                {QStringLiteral("currency"), currency}};
    Q_EMIT totalsChanged();
}

void DeskController::loadShows()
{
    KioskApi *api = m_session->api();
    begin();
    m_shows->setLoading(true);
    // The catalogue: every city's movies and their shows; then each show's occupancy.
    api->get(QStringLiteral("/api/v1/cities"), this, [this, api](const ApiReply &cities) {
        if (!cities.ok()) {
            end();
            m_shows->setLoading(false);
            failed(cities, tr("Shows"));
            return;
        }
        struct Collect {
            int pending = 0;
            QList<QJsonObject> shows;
            QMap<qint64, QString> movies;
        };
        auto collect = std::make_shared<Collect>();
        auto publish = [this, api, collect] {
            QMap<qint64, QVariantMap> screens;
            QJsonArray rows;
            for (QJsonObject show : std::as_const(collect->shows)) {
                const QJsonObject screen = show.value(QStringLiteral("screen")).toObject();
                const QJsonObject venue = show.value(QStringLiteral("venue")).toObject();
                const qint64 screenId = screen.value(QStringLiteral("screen_id")).toInteger();
                // What a new show on this screen takes by default: its venue's currency and its city's zone.
                screens.insert(screenId, QVariantMap{{QStringLiteral("id"), screenId},
                                                     {QStringLiteral("name"), screen.value(QStringLiteral("name")).toString() + QStringLiteral(" · ")
                                                                                  + venue.value(QStringLiteral("name")).toString()},
                                                     {QStringLiteral("currency"), venue.value(QStringLiteral("currency")).toString(str(show, "currency"))},
                                                     {QStringLiteral("time_zone"), QString::fromUtf8(showZone(show).id())}});
                show.insert(QStringLiteral("screen_name"), screen.value(QStringLiteral("name")));
                QStringList prices;
                const QJsonObject tiers = show.value(QStringLiteral("price_tiers")).toObject();
                for (auto it = tiers.begin(); it != tiers.end(); ++it)
                    prices.append(it.key() + QLatin1Char(' ') + formatMoney(it.value().toInteger(), str(show, "currency")));
                show.insert(QStringLiteral("prices"), prices.join(QStringLiteral(", ")));
                rows.append(show);
            }
            m_movieChoices.clear();
            for (auto it = collect->movies.begin(); it != collect->movies.end(); ++it)
                m_movieChoices.append(QVariantMap{{QStringLiteral("id"), it.key()}, {QStringLiteral("name"), it.value()}});
            m_screenChoices.clear();
            for (auto it = screens.begin(); it != screens.end(); ++it)
                m_screenChoices.append(it.value());
            Q_EMIT choicesChanged();
            if (rows.isEmpty()) {
                m_shows->setRows(rows);
                m_shows->setLoading(false);
                end();
                return;
            }
            auto withOccupancy = std::make_shared<QJsonArray>();
            auto left = std::make_shared<int>(int(rows.size()));
            for (const QJsonValue &value : std::as_const(rows)) {
                QJsonObject show = value.toObject();
                api->get(QStringLiteral("/api/v1/reports/occupancy?show_id=%1").arg(str(show, "show_id")), this,
                         [this, show, withOccupancy, left](const ApiReply &reply) mutable {
                             if (reply.ok()) {
                                 const QJsonObject occupancy = reply.object();
                                 const qint64 capacity = occupancy.value(QStringLiteral("capacity")).toInteger();
                                 const qint64 sold = occupancy.value(QStringLiteral("sold")).toInteger();
                                 show.insert(QStringLiteral("capacity"), capacity);
                                 show.insert(QStringLiteral("sold"), sold);
                                 show.insert(QStringLiteral("held"), occupancy.value(QStringLiteral("held")).toInteger()
                                                                         + occupancy.value(QStringLiteral("house_held")).toInteger());
                                 show.insert(QStringLiteral("occupancy"), capacity > 0 ? double(sold) / double(capacity) : 0.0);
                             }
                             withOccupancy->append(show);
                             if (--*left == 0) {
                                 m_shows->setRows(*withOccupancy);
                                 if (m_shows->sortColumn() < 0)
                                     m_shows->sort(2, Qt::AscendingOrder);
                                 m_shows->setLoading(false);
                                 end();
                             }
                         });
            }
        };
        const QJsonArray cityList = cities.array();
        // Times that belong to no show (holds made, reports finished) are the desk's venue's: its city, or the first.
        for (const QJsonValue &city : cityList)
            if (city == cityList.first() || str(city.toObject(), "name") == m_config.cityName)
                setAppVenueZone(str(city.toObject(), "time_zone"));
        if (cityList.isEmpty()) {
            publish();
            return;
        }
        collect->pending = int(cityList.size());
        for (const QJsonValue &city : cityList) {
            const QString cityId = str(city.toObject(), "city_id");
            api->get(QStringLiteral("/api/v1/cities/%1/movies").arg(cityId), this, [this, api, collect, publish, cityId](const ApiReply &movies) {
                const QJsonArray list = movies.array();
                collect->pending += int(list.size());
                for (const QJsonValue &movie : list) {
                    const QJsonObject object = movie.toObject();
                    collect->movies.insert(object.value(QStringLiteral("movie_id")).toInteger(), str(object, "title"));
                    api->get(QStringLiteral("/api/v1/movies/%1/shows?city=%2").arg(str(object, "movie_id"), cityId), this,
                             [collect, publish](const ApiReply &shows) {
                                 for (const QJsonValue &show : shows.array())
                                     collect->shows.append(show.toObject());
                                 if (--collect->pending == 0)
                                     publish();
                             });
                }
                if (--collect->pending == 0)
                    publish();
            });
        }
    });
}

void DeskController::loadDevices()
{
    begin();
    m_devices->setLoading(true);
    m_session->api()->get(QStringLiteral("/api/v1/devices"), this, [this](const ApiReply &reply) {
        end();
        m_devices->setLoading(false);
        if (!reply.ok()) {
            failed(reply, tr("Kiosk fleet"));
            return;
        }
        QJsonArray rows;
        QVariantList problems;
        for (const QJsonValue &value : reply.array()) {
            QJsonObject device = value.toObject();
            const QString printer = str(device, "printer_state");
            const bool online = device.value(QStringLiteral("online")).toBool();
            // The kiosk's latest reconciliation (sent with its heartbeat): null until it has reconciled once.
            const QJsonObject reconciliation = device.value(QStringLiteral("reconciliation")).toObject();
            const qint64 problemCount = reconciliation.value(QStringLiteral("problems_total")).toInteger();
            if (!reconciliation.isEmpty()) {
                const QJsonObject tickets = reconciliation.value(QStringLiteral("tickets")).toObject();
                const QJsonObject payments = reconciliation.value(QStringLiteral("payments")).toObject();
                auto n = [](const QJsonObject &counts, const char *key) { return QString::number(counts.value(QLatin1String(key)).toInteger()); };
                device.insert(QStringLiteral("reconciled_at"), reconciliation.value(QStringLiteral("finished_at")));
                device.insert(QStringLiteral("tickets_reconciled"),
                              QStringLiteral("%1 / %2 / %3").arg(n(tickets, "confirmed"), n(tickets, "voided"), n(tickets, "unknown")));
                device.insert(QStringLiteral("payments_reconciled"), QStringLiteral("%1 / %2 / %3")
                                                                         .arg(n(payments, "confirmed"), n(payments, "refund_due"),
                                                                              QString::number(payments.value(QStringLiteral("pending")).toInteger()
                                                                                              + payments.value(QStringLiteral("unknown")).toInteger())));
                device.insert(QStringLiteral("reconciliation_problems"), problemCount);
                const QString finished = wireTimeText(reconciliation.value(QStringLiteral("finished_at")).toString(), QLocale::ShortFormat);
                for (const QJsonValue &item : reconciliation.value(QStringLiteral("problems")).toArray()) {
                    const QJsonObject problem = item.toObject();
                    problems.append(QVariantMap{{QStringLiteral("device"), str(device, "name")},
                                                {QStringLiteral("kind"), str(problem, "kind") == QLatin1String("payment") ? tr("Payment") : tr("Ticket")},
                                                {QStringLiteral("id"), str(problem, "id")},
                                                {QStringLiteral("booking_ref"), str(problem, "booking_ref")},
                                                {QStringLiteral("state"), str(problem, "state")},
                                                {QStringLiteral("reason"), str(problem, "reason")},
                                                {QStringLiteral("finished"), finished}});
                }
            }
            const QString health = device.value(QStringLiteral("revoked")).toBool() ? tr("revoked")
                : !online                                                          ? tr("offline")
                : (printer != QLatin1String("ok") && printer != QLatin1String("none") && !printer.isEmpty()) || device.value(QStringLiteral("queue_length")).toInt() > 0
                        || problemCount > 0
                    ? tr("attention")
                    : tr("healthy");
            device.insert(QStringLiteral("health"), health);
            rows.append(device);
        }
        m_reconciliationProblems = problems;
        Q_EMIT devicesChanged();
        m_devices->setRows(rows);
    });
}

void DeskController::loadAudit()
{
    m_auditRange = rangeQuery();
    ++m_auditGeneration;
    loadAuditPage(0);
}

void DeskController::loadMoreAudit()
{
    if (m_auditNextBefore <= 0 || m_auditLoadingMore || !m_session->signedIn())
        return;
    loadAuditPage(m_auditNextBefore);
}

void DeskController::loadAuditPage(qint64 before)
{
    begin();
    m_audit->setLoading(true);
    m_auditLoadingMore = before > 0;
    const int generation = m_auditGeneration;
    QString path = QStringLiteral("/api/v1/reports/audit?limit=%1&").arg(kAuditPageSize) + m_auditRange;
    if (before > 0)
        path += QStringLiteral("&before=%1").arg(before);
    m_session->api()->get(path, this, [this, before, generation](const ApiReply &reply) {
        end();
        if (generation != m_auditGeneration)
            return; // the range changed meanwhile; its own load fills the table
        m_audit->setLoading(false);
        m_auditLoadingMore = false;
        if (!reply.ok()) {
            if (before == 0) { // the range's first page: what is shown would belong to another range
                m_auditRows = {};
                m_auditTotal = 0;
                m_auditNextBefore = 0;
                m_audit->setRows({});
                Q_EMIT auditPageChanged();
            }
            failed(reply, tr("Audit log"));
            return;
        }
        const QJsonObject page = reply.object();
        if (before == 0)
            m_auditRows = {};
        for (const QJsonValue &row : page.value(QStringLiteral("rows")).toArray())
            m_auditRows.append(row);
        m_auditTotal = page.value(QStringLiteral("total")).toInteger();
        m_auditNextBefore = page.value(QStringLiteral("truncated")).toBool() ? page.value(QStringLiteral("next_before")).toInteger() : 0;
        m_audit->setRows(m_auditRows);
        Q_EMIT auditPageChanged();
    });
}

QString DeskController::auditNotice() const
{
    if (m_auditNextBefore <= 0)
        return {};
    const QLocale locale;
    return tr("Showing the newest %1 of %2 entries in this range. Load more, or narrow the range.")
        .arg(locale.toString(qlonglong(m_auditRows.size())), locale.toString(m_auditTotal));
}

void DeskController::loadRefunds()
{
    begin();
    m_refunds->setLoading(true);
    m_session->api()->get(QStringLiteral("/api/v1/reports/refunds?limit=5000&") + rangeQuery(), this, [this](const ApiReply &reply) {
        end();
        m_refunds->setLoading(false);
        if (!reply.ok()) {
            m_refunds->setErrorString(reply.message.isEmpty() ? reply.code : reply.message);
            m_refunds->setRows({});
            failed(reply, tr("Refunds"));
            return;
        }
        m_refunds->setErrorString({});
        QJsonArray rows;
        qint64 unbooked = 0;
        for (const QJsonValue &value : reply.object().value(QStringLiteral("rows")).toArray()) {
            QJsonObject refund = value.toObject();
            for (const auto &[key, text] : refundTexts(refund))
                refund.insert(key, text);
            if (refund.value(QStringLiteral("booking_ref")).isNull())
                ++unbooked;
            rows.append(refund);
        }
        m_refunds->setRows(rows);
        m_unbookedRefunds = unbooked;
        computeTotals();
        if (reply.object().value(QStringLiteral("truncated")).toBool())
            setMessage(tr("Refunds: the newest %1 of the range are listed; choose a shorter range to see the rest.").arg(rows.size()));
    });
}

void DeskController::loadReconciliation()
{
    begin();
    m_reconciliation->setLoading(true);
    m_session->api()->get(QStringLiteral("/api/v1/reports/reconciliation"), this, [this](const ApiReply &reply) {
        end();
        m_reconciliation->setLoading(false);
        if (!reply.ok()) {
            m_reconciliation->setRows({});
            failed(reply, tr("Payments awaiting reconciliation"));
            return;
        }
        QJsonArray rows;
        for (const QJsonValue &value : reply.array()) {
            QJsonObject order = value.toObject();
            // Said as what a person waits for, not as the server's code.
            const QString waitingFor = str(order, "waiting_for");
            order.insert(QStringLiteral("waiting_for"), waitingFor == QLatin1String("refund")            ? tr("refund")
                                                        : waitingFor == QLatin1String("booking")         ? tr("booking")
                                                        : waitingFor == QLatin1String("payment_start")   ? tr("payment start")
                                                        : waitingFor == QLatin1String("provider_answer") ? tr("provider answer")
                                                                                                         : waitingFor);
            rows.append(order);
        }
        m_reconciliation->setRows(rows);
    });
}

void DeskController::loadShifts()
{
    begin();
    m_session->api()->get(QStringLiteral("/api/v1/reports/shifts?") + rangeQuery(), this, [this](const ApiReply &reply) {
        end();
        if (!reply.ok()) {
            m_shifts->setErrorString(reply.status == 404 ? tr("This server does not report shifts yet.") : reply.message);
            m_shifts->setRows({});
            return;
        }
        const QJsonArray rows = QJsonDocument::fromJson(reply.body).isArray() ? reply.array() : reply.object().value(QStringLiteral("rows")).toArray();
        m_shifts->setErrorString({});
        m_shifts->setRows(rows);
    });
}

void DeskController::openOccupancy(qint64 showId)
{
    KioskApi *api = m_session->api();
    if (!api || showId <= 0)
        return;
    m_occupancyShowId = showId;
    m_occupancyMap->load(api, showId, 0);
    loadHouseHolds(showId);
    begin();
    api->get(QStringLiteral("/api/v1/reports/occupancy?show_id=%1").arg(showId), this, [this, showId](const ApiReply &reply) {
        end();
        if (showId != m_occupancyShowId)
            return;
        m_heat.clear();
        m_occupancy.clear();
        if (!reply.ok()) {
            failed(reply, tr("Occupancy"));
            // The seat map still shows the show (sold and held seats), only the sell order is missing.
            m_occupancy = {{QStringLiteral("show_id"), showId}, {QStringLiteral("report_missing"), true}};
            Q_EMIT occupancyChanged();
            return;
        }
        const QJsonObject object = reply.object();
        // Heat: the first seat sold is 1.0, the last 0.0 — "which seats sell first".
        qint64 lastOrder = 0;
        const QJsonArray seats = object.value(QStringLiteral("seats")).toArray();
        for (const QJsonValue &seat : seats)
            lastOrder = qMax(lastOrder, seat.toObject().value(QStringLiteral("sell_order")).toInteger());
        for (const QJsonValue &seat : seats) {
            const QJsonObject s = seat.toObject();
            const qint64 order = s.value(QStringLiteral("sell_order")).toInteger();
            if (order > 0)
                m_heat.insert(str(s, "seat_id"), lastOrder <= 1 ? 1.0 : 1.0 - double(order - 1) / double(lastOrder - 1));
        }
        const qint64 capacity = object.value(QStringLiteral("capacity")).toInteger();
        const qint64 sold = object.value(QStringLiteral("sold")).toInteger();
        QString title;
        for (int i = 0; i < m_shows->count(); ++i)
            if (m_shows->rowAt(i).value(QStringLiteral("show_id")).toLongLong() == showId)
                title = m_shows->rowAt(i).value(QStringLiteral("title")).toString() + QStringLiteral(" · ")
                        + wireTimeText(m_shows->rowAt(i).value(QStringLiteral("starts_at")).toString(), tr("ddd d MMM HH:mm", "date format"),
                                       showZone(QJsonObject::fromVariantMap(m_shows->rowAt(i))));
        m_occupancy = {{QStringLiteral("show_id"), showId},
                       {QStringLiteral("title"), title},
                       {QStringLiteral("capacity"), capacity},
                       {QStringLiteral("sold"), sold},
                       {QStringLiteral("held"), object.value(QStringLiteral("held")).toInteger()},
                       {QStringLiteral("house_held"), object.value(QStringLiteral("house_held")).toInteger()},
                       {QStringLiteral("free"), object.value(QStringLiteral("free")).toInteger()},
                       {QStringLiteral("percent"), capacity > 0 ? int(100 * sold / capacity) : 0}};
        Q_EMIT occupancyChanged();
    });
}

void DeskController::loadHouseHolds(qint64 showId)
{
    KioskApi *api = m_session->api();
    if (!api)
        return;
    begin();
    api->get(QStringLiteral("/api/v1/shows/%1/house-holds").arg(showId), this, [this, showId](const ApiReply &reply) {
        end();
        if (showId != m_occupancyShowId)
            return;
        m_houseHolds.clear();
        if (!reply.ok()) {
            failed(reply, tr("House holds"));
        } else {
            for (const QJsonValue &value : reply.array()) {
                const QJsonObject hold = value.toObject();
                QStringList seats;
                for (const QJsonValue &seat : hold.value(QStringLiteral("seat_ids")).toArray())
                    seats.append(seat.toString());
                m_houseHolds.append(QVariantMap{{QStringLiteral("hold_id"), str(hold, "hold_id")},
                                                {QStringLiteral("seats"), seats.join(QStringLiteral(" "))},
                                                {QStringLiteral("seat_count"), seats.size()},
                                                {QStringLiteral("reason"), str(hold, "reason")},
                                                {QStringLiteral("created"), wireTimeText(str(hold, "created_at"), tr("d MMM HH:mm", "date format"))}});
            }
        }
        Q_EMIT houseHoldsChanged();
    });
}

void DeskController::placeHouseHold(const QString &seatsText, const QString &reason)
{
    KioskApi *api = m_session->api();
    const qint64 showId = m_occupancyShowId;
    if (!api || showId <= 0)
        return;
    const QStringList seats = seatsText.toUpper().split(QRegularExpression(QStringLiteral("[\\s,;]+")), Qt::SkipEmptyParts);
    if (seats.isEmpty() || reason.trimmed().isEmpty()) {
        setMessage(tr("A house hold needs seats (for example A4 A5) and a reason."), true);
        return;
    }
    begin();
    api->post(QStringLiteral("/api/v1/shows/%1/house-holds").arg(showId),
              QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}, {QStringLiteral("reason"), reason.trimmed()}}, this,
              [this, showId, seats](const ApiReply &reply) {
                  end();
                  if (reply.code == QLatin1String("seats_unavailable")) {
                      QStringList taken;
                      for (const QJsonValue &seat : reply.object().value(QStringLiteral("held_seats")).toArray())
                          taken.append(seat.toString());
                      setMessage(tr("Nothing was held: %1 is already held or sold.").arg(taken.join(QStringLiteral(", "))), true);
                      return;
                  }
                  if (!reply.ok()) {
                      failed(reply, tr("House hold"));
                      return;
                  }
                  setMessage(tr("%n seat(s) kept back for house use: %1.", nullptr, int(seats.size())).arg(seats.join(QStringLiteral(" "))));
                  if (showId == m_occupancyShowId)
                      openOccupancy(showId);
              },
              KioskApi::newIdempotencyKey());
}

void DeskController::releaseHouseHold(const QString &holdId, const QString &reason)
{
    KioskApi *api = m_session->api();
    if (!api || holdId.isEmpty())
        return;
    QUrlQuery query;
    if (!reason.trimmed().isEmpty())
        query.addQueryItem(QStringLiteral("reason"), reason.trimmed());
    const QString path = QStringLiteral("/api/v1/house-holds/%1").arg(holdId) + (query.isEmpty() ? QString() : QLatin1Char('?') + query.toString(QUrl::FullyEncoded));
    const qint64 showId = m_occupancyShowId;
    begin();
    api->del(path, this, [this, showId](const ApiReply &reply) {
        end();
        if (!reply.ok()) {
            failed(reply, tr("Releasing the house hold"));
            return;
        }
        setMessage(tr("House hold released; the seats are on sale again."));
        if (showId == m_occupancyShowId)
            openOccupancy(showId);
    });
}

QString DeskController::exportTable(JsonTableModel *model, const QString &name)
{
    if (!model)
        return {};
    QDir().mkpath(exportDir());
    QString safe = name;
    safe.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_-]+")), QStringLiteral("-"));
    const QString path = exportDir() + QStringLiteral("/%1-%2-%3.csv").arg(safe, fromDate(), toDate());
    if (!model->exportCsv(path)) {
        setMessage(model->errorString(), true);
        return {};
    }
    setMessage(tr("Exported %n row(s) to %1", nullptr, model->count()).arg(path));
    return path;
}

std::optional<QJsonObject> DeskController::showBody(const QVariantMap &fields, const ShowForm &form, QString *error)
{
    QJsonObject body;
    QString currency = form.currency;
    if (form.creating) {
        const qint64 movieId = fields.value(QStringLiteral("movie_id")).toLongLong();
        const qint64 screenId = fields.value(QStringLiteral("screen_id")).toLongLong();
        if (movieId <= 0 || screenId <= 0) {
            *error = tr("Choose a movie and a screen.");
            return std::nullopt;
        }
        body.insert(QStringLiteral("movie_id"), movieId);
        body.insert(QStringLiteral("screen_id"), screenId);
        const QString typed = fields.value(QStringLiteral("currency")).toString().trimmed().toUpper();
        if (!typed.isEmpty() && !isCurrencyCode(typed)) {
            *error = tr("The currency is a three-letter code such as INR or EUR.");
            return std::nullopt;
        }
        if (!typed.isEmpty())
            currency = typed;
        // Left empty (no default known either), the server takes the venue's currency.
        if (!currency.isEmpty())
            body.insert(QStringLiteral("currency"), currency);
    }
    const QString starts = fields.value(QStringLiteral("starts_at")).toString().trimmed();
    if (!starts.isEmpty() || form.creating) {
        // People type the venue's wall-clock time, wherever the desk is; the server wants an instant.
        const VenueLocalTime local = parseVenueLocal(starts, form.zone);
        const QString zoneName = QString::fromUtf8(form.zone.id());
        switch (local.kind) {
        case VenueLocalTime::Kind::Invalid:
            *error = tr("The start is a date and time like 2026-12-05 19:30 (%1 time).").arg(zoneName);
            return std::nullopt;
        case VenueLocalTime::Kind::Gap:
            *error = tr("%1 does not exist in %2: the clocks go forward that night. Choose a time an hour later.").arg(starts, zoneName);
            return std::nullopt;
        case VenueLocalTime::Kind::Ambiguous: // the clocks go back: the first of the two, as the printed ticket will say (with its zone)
        case VenueLocalTime::Kind::Exact:
            break;
        }
        body.insert(QStringLiteral("starts_at"), toIsoUtc(local.utc));
    }
    const QVariantMap tiers = fields.value(QStringLiteral("price_tiers")).toMap();
    if (!tiers.isEmpty()) {
        QJsonObject prices;
        for (auto it = tiers.begin(); it != tiers.end(); ++it) {
            const QString text = it.value().toString().trimmed();
            if (text.isEmpty())
                continue;
            const std::optional<qint64> minor = parseAmountInput(text, currencyExponent(currency));
            if (!minor) {
                *error = tr("The %1 price “%2” is not an amount.").arg(it.key(), text);
                return std::nullopt;
            }
            prices.insert(it.key(), *minor);
        }
        if (!prices.isEmpty())
            body.insert(QStringLiteral("price_tiers"), prices);
    }
    if (form.creating && !body.contains(QStringLiteral("price_tiers"))) {
        *error = tr("Give each seat tier a price.");
        return std::nullopt;
    }
    const QString reason = fields.value(QStringLiteral("reason")).toString().trimmed();
    if (!form.creating && !reason.isEmpty())
        body.insert(QStringLiteral("reason"), reason);
    if (!form.creating && fields.contains(QStringLiteral("waiting_room")))
        body.insert(QStringLiteral("waiting_room"), fields.value(QStringLiteral("waiting_room")).toBool());
    return body;
}

QVariantMap DeskController::screenChoice(qint64 screenId) const
{
    for (const QVariant &choice : m_screenChoices)
        if (choice.toMap().value(QStringLiteral("id")).toLongLong() == screenId)
            return choice.toMap();
    return {};
}

QVariantMap DeskController::showRow(qint64 showId) const
{
    for (int i = 0; i < m_shows->count(); ++i)
        if (m_shows->rowAt(i).value(QStringLiteral("show_id")).toLongLong() == showId)
            return m_shows->rowAt(i);
    return {};
}

QString DeskController::screenCurrency(qint64 screenId) const
{
    return screenChoice(screenId).value(QStringLiteral("currency")).toString();
}

QString DeskController::screenZone(qint64 screenId) const
{
    const QString zone = screenChoice(screenId).value(QStringLiteral("time_zone")).toString();
    return zone.isEmpty() ? QString::fromUtf8(appVenueZone().id()) : zone;
}

QString DeskController::startsInput(const QVariantMap &show) const
{
    const QDateTime starts = fromIso(show.value(QStringLiteral("starts_at")).toString());
    return starts.isValid() ? venueTimeText(starts, showZone(QJsonObject::fromVariantMap(show)), QStringLiteral("yyyy-MM-dd HH:mm"), QLocale::c(),
                                            ZoneLabel::Never)
                            : QString();
}

QString DeskController::priceInput(const QVariant &minor, const QString &currency) const
{
    return minor.isValid() && !minor.isNull() ? moneyInputText(minor.toLongLong(), currency) : QString();
}

void DeskController::createShow(const QVariantMap &fields)
{
    KioskApi *api = m_session->api();
    if (!api)
        return;
    QString error;
    const qint64 screenId = fields.value(QStringLiteral("screen_id")).toLongLong();
    const ShowForm form{true, venueZone(screenZone(screenId)), screenCurrency(screenId)};
    const std::optional<QJsonObject> body = showBody(fields, form, &error);
    if (!body) {
        setMessage(error, true);
        return;
    }
    begin();
    api->post(QStringLiteral("/api/v1/shows"), *body, this, [this](const ApiReply &reply) {
        end();
        if (!reply.ok()) {
            failed(reply, tr("Creating the show"));
            return;
        }
        const qint64 id = reply.object().value(QStringLiteral("show_id")).toInteger();
        setMessage(tr("Show %1 created.").arg(id));
        Q_EMIT showSaved(id);
        loadShows();
    });
}

void DeskController::updateShow(qint64 showId, const QVariantMap &fields)
{
    KioskApi *api = m_session->api();
    if (!api || showId <= 0)
        return;
    QString error;
    const QVariantMap show = showRow(showId);
    const ShowForm form{false, showZone(QJsonObject::fromVariantMap(show)), show.value(QStringLiteral("currency")).toString()};
    const std::optional<QJsonObject> body = showBody(fields, form, &error);
    if (!body) {
        setMessage(error, true);
        return;
    }
    if (body->isEmpty()) {
        setMessage(tr("Nothing to change."), true);
        return;
    }
    begin();
    m_session->sendJson("PATCH", QStringLiteral("/api/v1/shows/%1").arg(showId), *body, this, [this, showId](const ApiReply &reply) {
        end();
        if (!reply.ok()) {
            failed(reply, tr("Saving the show"));
            return;
        }
        setMessage(tr("Show %1 saved.").arg(showId));
        Q_EMIT showSaved(showId);
        loadShows();
    });
}

void DeskController::setWaitingRoom(qint64 showId, bool on)
{
    if (!m_session->signedIn() || showId <= 0)
        return;
    // The room itself (queue, admission) is switched here; it sets the catalogue flag too.
    begin();
    m_session->sendJson("PUT", QStringLiteral("/api/v1/shows/%1/waiting-room").arg(showId),
                        QJsonObject{{QStringLiteral("enabled"), on}, {QStringLiteral("reason"), on ? tr("switched on at the desk") : tr("switched off at the desk")}},
                        this, [this, showId, on](const ApiReply &reply) {
                            end();
                            if (!reply.ok()) {
                                failed(reply, tr("Switching the waiting room"));
                                return;
                            }
                            setMessage(on ? tr("Waiting room on for show %1.").arg(showId) : tr("Waiting room off for show %1.").arg(showId));
                            Q_EMIT showSaved(showId);
                            loadShows();
                        });
}

} // namespace marquee::app
