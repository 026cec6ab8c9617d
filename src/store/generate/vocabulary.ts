/**
 * @module Word lists for the synthetic generator: plausible industries, business models,
 * keywords, app categories, metro regions (with city, state, country) and name parts. Earlier
 * entries are drawn more often (the generator skews towards the front), which gives tag values
 * the long-tailed frequencies real data has.
 */

export const INDUSTRIES = [
  'Software', 'Enterprise Software', 'Fintech', 'Health Care', 'E-Commerce', 'Artificial Intelligence', 'SaaS',
  'Marketplaces', 'Biotechnology', 'Education', 'Media', 'Advertising', 'Security', 'Consumer Electronics',
  'Real Estate', 'Logistics', 'Gaming', 'Travel', 'Food and Beverage', 'Clean Energy', 'Robotics',
  'Insurance', 'Human Resources', 'Analytics', 'Developer Tools', 'Mobile', 'Social Media', 'Fashion',
  'Automotive', 'Agriculture', 'Legal', 'Music', 'Sports', 'Hardware', 'Semiconductors', 'Telecommunications',
  'Nonprofit', 'Government', 'Space', 'Crypto',
] as const

export const BUSINESS_MODELS = [
  'B2B', 'B2C', 'SaaS', 'Marketplace', 'Subscription', 'E-Commerce', 'Advertising', 'Hardware',
  'Licensing', 'Freemium', 'Transaction Fees', 'Consulting',
] as const

const KEYWORD_STEMS = [
  'cloud', 'mobile', 'payments', 'analytics', 'machine learning', 'api', 'platform', 'automation',
  'data', 'security', 'health', 'video', 'social', 'marketplace', 'logistics', 'crm', 'devops',
  'iot', 'wearables', 'genomics', 'lending', 'insurance', 'hiring', 'learning', 'travel', 'food',
  'energy', 'solar', 'batteries', 'robotics', 'drones', 'ar', 'vr', 'gaming', 'music', 'streaming',
  'privacy', 'identity', 'compliance', 'billing', 'search', 'maps', 'messaging', 'email', 'chat',
  'collaboration', 'design', 'photos', 'fitness', 'nutrition',
] as const
const KEYWORD_SUFFIXES = ['', ' software', ' tools'] as const
export const KEYWORDS: readonly string[] = KEYWORD_SUFFIXES.flatMap((s) => KEYWORD_STEMS.map((k) => `${k}${s}`))

export const PLAY_CATEGORIES = [
  'Productivity', 'Business', 'Finance', 'Tools', 'Communication', 'Health & Fitness', 'Education',
  'Shopping', 'Social', 'Entertainment', 'Travel & Local', 'Games', 'Music & Audio', 'Lifestyle',
] as const

export const IOS_STORE_CATEGORIES = [
  'Productivity', 'Business', 'Finance', 'Utilities', 'Social Networking', 'Health & Fitness',
  'Education', 'Shopping', 'Entertainment', 'Travel', 'Games', 'Music', 'Lifestyle', 'Food & Drink',
] as const

export interface Metro {
  readonly region: string
  readonly cities: readonly string[]
  /** Null outside countries with states in the address. */
  readonly state: string | null
  readonly country: string
  readonly zipPrefix: string
  /** Relative frequency. */
  readonly weight: number
}

export const METROS: readonly Metro[] = [
  { region: 'San Francisco Bay Area', cities: ['San Francisco', 'Palo Alto', 'Mountain View', 'Oakland', 'San Jose'], state: 'CA', country: 'USA', zipPrefix: '94', weight: 20 },
  { region: 'New York City', cities: ['New York', 'Brooklyn', 'Jersey City'], state: 'NY', country: 'USA', zipPrefix: '10', weight: 12 },
  { region: 'Greater Boston', cities: ['Boston', 'Cambridge', 'Somerville'], state: 'MA', country: 'USA', zipPrefix: '02', weight: 6 },
  { region: 'Los Angeles', cities: ['Los Angeles', 'Santa Monica', 'Pasadena'], state: 'CA', country: 'USA', zipPrefix: '90', weight: 6 },
  { region: 'Seattle', cities: ['Seattle', 'Bellevue', 'Redmond'], state: 'WA', country: 'USA', zipPrefix: '98', weight: 4 },
  { region: 'Austin', cities: ['Austin', 'Round Rock'], state: 'TX', country: 'USA', zipPrefix: '78', weight: 3 },
  { region: 'Chicago', cities: ['Chicago', 'Evanston'], state: 'IL', country: 'USA', zipPrefix: '60', weight: 3 },
  { region: 'Denver', cities: ['Denver', 'Boulder'], state: 'CO', country: 'USA', zipPrefix: '80', weight: 2 },
  { region: 'Washington DC', cities: ['Washington', 'Arlington'], state: 'DC', country: 'USA', zipPrefix: '20', weight: 2 },
  { region: 'Atlanta', cities: ['Atlanta'], state: 'GA', country: 'USA', zipPrefix: '30', weight: 2 },
  { region: 'Miami', cities: ['Miami', 'Fort Lauderdale'], state: 'FL', country: 'USA', zipPrefix: '33', weight: 2 },
  { region: 'Salt Lake City', cities: ['Salt Lake City', 'Lehi'], state: 'UT', country: 'USA', zipPrefix: '84', weight: 1 },
  { region: 'London', cities: ['London'], state: null, country: 'GBR', zipPrefix: 'EC', weight: 5 },
  { region: 'Toronto', cities: ['Toronto', 'Waterloo'], state: 'ON', country: 'CAN', zipPrefix: 'M5', weight: 2 },
  { region: 'Berlin', cities: ['Berlin'], state: null, country: 'DEU', zipPrefix: '10', weight: 2 },
  { region: 'Paris', cities: ['Paris'], state: null, country: 'FRA', zipPrefix: '75', weight: 2 },
  { region: 'Tel Aviv', cities: ['Tel Aviv', 'Herzliya'], state: null, country: 'ISR', zipPrefix: '6', weight: 2 },
  { region: 'Bangalore', cities: ['Bangalore'], state: null, country: 'IND', zipPrefix: '56', weight: 2 },
  { region: 'Singapore', cities: ['Singapore'], state: null, country: 'SGP', zipPrefix: '0', weight: 1 },
  { region: 'Sydney', cities: ['Sydney'], state: 'NSW', country: 'AUS', zipPrefix: '2', weight: 1 },
  { region: 'Amsterdam', cities: ['Amsterdam'], state: null, country: 'NLD', zipPrefix: '10', weight: 1 },
  { region: 'Stockholm', cities: ['Stockholm'], state: null, country: 'SWE', zipPrefix: '11', weight: 1 },
  { region: 'Sao Paulo', cities: ['Sao Paulo'], state: null, country: 'BRA', zipPrefix: '01', weight: 1 },
]

export const NAME_STARTS = ['Ac', 'Bri', 'Cal', 'Dor', 'El', 'Fen', 'Gal', 'Hel', 'Ist', 'Jun', 'Kor', 'Lum', 'Mer', 'Nov', 'Or', 'Pax', 'Quin', 'Ral', 'Sol', 'Tor', 'Ul', 'Ver', 'Wex', 'Xan', 'Yar', 'Zen'] as const
export const NAME_MIDDLES = ['a', 'e', 'i', 'o', 'u', 'ar', 'en', 'il', 'on', 'um', 'ex', 'ly'] as const
export const NAME_ENDS = ['bit', 'ly', 'io', 'fy', 'ra', 'os', 'ex', 'go', 'hub', 'lab', 'ware', 'stack', 'wise', 'loop', 'mint', 'scape'] as const
export const COMPANY_SUFFIXES = ['', '', '', ' Inc', ' Labs', ' AI', ' Health', ' Systems', ' Technologies'] as const
export const TLDS = ['com', 'com', 'com', 'io', 'co', 'ai', 'net'] as const

export const INVESTOR_WORDS = ['Blue', 'Granite', 'Harbor', 'Summit', 'North', 'Pioneer', 'Redwood', 'Lighthouse', 'Atlas', 'Beacon', 'Cedar', 'Frontier', 'Meridian', 'Union', 'Foundry', 'Orbit', 'Signal', 'Keystone', 'Canopy', 'Sequoia'] as const
export const INVESTOR_NOUNS = ['Rock', 'Point', 'Bridge', 'Field', 'Peak', 'Line', 'Wave', 'Stone', 'Gate', 'Path', 'River', 'Ridge'] as const
export const INVESTOR_SUFFIXES: Readonly<Record<string, readonly string[]>> = {
  vc: ['Ventures', 'Capital', 'Partners', 'Venture Partners'],
  angel: [''],
  accelerator: ['Accelerator', 'Labs', 'Launchpad'],
  corporate: ['Corporate Ventures', 'Ventures'],
  private_equity: ['Equity Partners', 'Growth Equity', 'Capital Management'],
}
export const FIRST_NAMES = ['Alex', 'Sam', 'Jordan', 'Taylor', 'Morgan', 'Casey', 'Riley', 'Jamie', 'Avery', 'Quinn', 'Priya', 'Wei', 'Sofia', 'Mateo', 'Amara', 'Lena', 'Omar', 'Yuki'] as const
export const LAST_NAMES = ['Smith', 'Chen', 'Patel', 'Garcia', 'Kim', 'Nguyen', 'Muller', 'Rossi', 'Cohen', 'Okafor', 'Silva', 'Larsen', 'Tanaka', 'Novak'] as const
export const TITLES = ['CEO', 'CTO', 'COO', 'CFO', 'VP Engineering', 'VP Marketing', 'Head of Product', 'Founder'] as const
export const TECH = ['Google Analytics', 'React', 'AWS', 'Stripe', 'Cloudflare', 'Segment', 'HubSpot', 'Intercom', 'Zendesk', 'Salesforce', 'Shopify', 'WordPress', 'Vue', 'Heroku', 'Datadog', 'Sentry'] as const
export const REVENUE_RANGES = ['$0-$1M', '$1M-$10M', '$10M-$50M', '$50M-$100M', '$100M-$500M', '$500M+'] as const
export const NEWS_SOURCES = ['TechCrunch', 'VentureBeat', 'Business Wire', 'PR Newswire', 'Bloomberg', 'Reuters'] as const
export const FUNDING_SOURCES = ['press release', 'news', 'regulatory filing', 'company website'] as const
