// A C replica of one bf16 paged decode call as accel's flash-decoding runs
// it (docs/decode-attention.md): Hkv 8, 4 query heads a KV head, D 128,
// 16-token pages in a random order, 8k context, one sequence, one thread;
// per page and head: the next page's rows prefetched a key at a time, the
// logits (FMA dot products as accel's, or with `amx`: S^T = K . Q^T on AMX
// tiles, K's rows tile-loaded where they lie in the pool, Q^T packed once),
// the online softmax, P . V with FMAs in a 4 x 64 register tile. The pool is
// cold (8 copies cycled). Not part of the build or the tests: it measures
// what a kernel change would buy before the compiler emits it.
//
//   clang-22 -O3 -march=native bench/replicas/decode_step.c -o /tmp/decode_step -lm
//   /tmp/decode_step        # FMA logits
//   /tmp/decode_step amx    # AMX logits (needs amx-bf16)
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#define HKV 8
#define G 4
#define D 128
#define T 16
typedef uint16_t bf16;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static float b2f(bf16 x){uint32_t u=(uint32_t)x<<16;float f;memcpy(&f,&u,4);return f;}
static bf16 f2b(float f){uint32_t u;memcpy(&u,&f,4);return (bf16)((u+0x7fff+((u>>16)&1))>>16);}
typedef struct { uint8_t palette, start; uint8_t r0[14]; uint16_t colsb[16]; uint8_t rows[16]; } cfg_t;
static inline __m512 exp2v(__m512 x){ x=_mm512_max_ps(x,_mm512_set1_ps(-126.f)); __m512 n=_mm512_roundscale_ps(x,0); __m512 f=_mm512_sub_ps(x,n);
  __m512 p=_mm512_set1_ps(1.535336188319500e-4f); p=_mm512_fmadd_ps(p,f,_mm512_set1_ps(1.339887440266574e-3f)); p=_mm512_fmadd_ps(p,f,_mm512_set1_ps(9.618437357674640e-3f));
  p=_mm512_fmadd_ps(p,f,_mm512_set1_ps(5.550332471162809e-2f)); p=_mm512_fmadd_ps(p,f,_mm512_set1_ps(2.402264791363012e-1f)); p=_mm512_fmadd_ps(p,f,_mm512_set1_ps(6.931472028550421e-1f)); p=_mm512_fmadd_ps(p,f,_mm512_set1_ps(1.f));
  return _mm512_scalef_ps(p,n);}
static inline __m512 widen(const bf16*p){return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)p)),16));}
int main(int argc,char**argv){
  int amx=argc>1&&argv[1][0]=='a'; int ctx=8192, pages=ctx/T; int copies=8;
  if(amx){ if(syscall(SYS_arch_prctl,0x1023,18)){perror("prctl");return 1;}
    cfg_t c; memset(&c,0,sizeof c); c.palette=1;
    c.rows[0]=16;c.colsb[0]=64;  // C: 16 keys x 16 f32
    for(int i=1;i<8;i++){c.rows[i]=16;c.colsb[i]=64;} // A: 16 keys x 32 bf16; B: 16 pairs x 16 rows
    _tile_loadconfig(&c);}
  size_t pool=(size_t)pages*T*HKV*D; bf16 **K=malloc(copies*sizeof*K),**V=malloc(copies*sizeof*V);
  for(int c=0;c<copies;c++){K[c]=aligned_alloc(64,pool*2);V[c]=aligned_alloc(64,pool*2);for(size_t i=0;i<pool;i++){K[c][i]=f2b((rand()/(float)RAND_MAX)*2-1);V[c][i]=f2b((rand()/(float)RAND_MAX)*2-1);}}
  int *table=malloc(pages*4); for(int i=0;i<pages;i++)table[i]=i; for(int i=pages-1;i>0;i--){int j=rand()%(i+1);int t=table[i];table[i]=table[j];table[j]=t;}
  bf16 q[HKV][G][D]; float qf[HKV][G][D]; for(int h=0;h<HKV;h++)for(int r=0;r<G;r++)for(int d=0;d<D;d++){q[h][r][d]=f2b((rand()/(float)RAND_MAX)*2-1);qf[h][r][d]=b2f(q[h][r][d]);}
  // Q^T packed for AMX: per head, 4 chunks of [16 kp][16 n][2]
  static bf16 qb[HKV][4][16][16][2] __attribute__((aligned(64))); memset(qb,0,sizeof qb);
  for(int h=0;h<HKV;h++)for(int c=0;c<4;c++)for(int kp=0;kp<16;kp++)for(int n=0;n<G;n++)for(int e=0;e<2;e++)qb[h][c][kp][n][e]=q[h][n][c*32+2*kp+e];
  float scale=1.0f/sqrtf(D)*1.4426950408889634f;
  static float acc[HKV][G][D] __attribute__((aligned(64))); float m[HKV][G], l[HKV][G];
  double best=1e9; float out0=0;
  for(int it=0;it<3*copies;it++){
    bf16*Kp=K[it%copies],*Vp=V[it%copies];
    double t0=now();
    memset(acc,0,sizeof acc); for(int h=0;h<HKV;h++)for(int r=0;r<G;r++){m[h][r]=-INFINITY;l[h][r]=0;}
    for(int n=0;n<pages;n++){
      int pg=table[n], pa=table[n+1<pages?n+1:pages-1];
      for(int h=0;h<HKV;h++){
        const bf16*kb=Kp+((size_t)pg*T*HKV+h)*D, *vb=Vp+((size_t)pg*T*HKV+h)*D;
        float s[G][T] __attribute__((aligned(64)));
        for(int j=0;j<T;j++){ const char*a=(const char*)(Kp+((size_t)pa*T*HKV+j*HKV+h)*D), *b=(const char*)(Vp+((size_t)pa*T*HKV+j*HKV+h)*D);
          for(int c=0;c<256;c+=64){_mm_prefetch(a+c,_MM_HINT_T0);_mm_prefetch(b+c,_MM_HINT_T0);} }
        if(amx){
          float st[16][16] __attribute__((aligned(64)));
          _tile_zero(0);
          _tile_loadd(1,kb+0,HKV*D*2); _tile_loadd(5,qb[h][0],64); _tile_dpbf16ps(0,1,5);
          _tile_loadd(2,kb+32,HKV*D*2); _tile_loadd(6,qb[h][1],64); _tile_dpbf16ps(0,2,6);
          _tile_loadd(3,kb+64,HKV*D*2); _tile_loadd(7,qb[h][2],64); _tile_dpbf16ps(0,3,7);
          _tile_loadd(4,kb+96,HKV*D*2); _tile_loadd(5,qb[h][3],64); _tile_dpbf16ps(0,4,5);
          _tile_stored(0,st,64);
          for(int r=0;r<G;r++){ __m512i idx=_mm512_set_epi32(15*16,14*16,13*16,12*16,11*16,10*16,9*16,8*16,7*16,6*16,5*16,4*16,3*16,2*16,16,0);
            _mm512_store_ps(s[r],_mm512_i32gather_ps(_mm512_add_epi32(idx,_mm512_set1_epi32(r)),&st[0][0],4)); }
        } else {
          for(int j=0;j<T;j++){ const bf16*kr=kb+(size_t)j*HKV*D; __m512 kv[8]; for(int c=0;c<8;c++)kv[c]=widen(kr+16*c);
            for(int r=0;r<G;r++){ __m512 a=_mm512_mul_ps(_mm512_load_ps(qf[h][r]),kv[0]); for(int c=1;c<8;c++)a=_mm512_fmadd_ps(_mm512_load_ps(qf[h][r]+16*c),kv[c],a); s[r][j]=_mm512_reduce_add_ps(a);} }
        }
        float alpha[G]; __m512 p[G];
        for(int r=0;r<G;r++){ __m512 x=_mm512_mul_ps(_mm512_load_ps(s[r]),_mm512_set1_ps(scale)); float mx=_mm512_reduce_max_ps(x); float mn=fmaxf(m[h][r],mx);
          alpha[r]=exp2f(m[h][r]-mn); m[h][r]=mn; p[r]=exp2v(_mm512_sub_ps(x,_mm512_set1_ps(mn))); l[h][r]=l[h][r]*alpha[r]+_mm512_reduce_add_ps(p[r]); }
        float pp[G][T]; for(int r=0;r<G;r++)_mm512_storeu_ps(pp[r],p[r]);
        for(int c0=0;c0<D;c0+=64){ __m512 o[G][4];
          for(int r=0;r<G;r++)for(int c=0;c<4;c++)o[r][c]=_mm512_mul_ps(_mm512_load_ps(acc[h][r]+c0+16*c),_mm512_set1_ps(alpha[r]));
          for(int j=0;j<T;j++){ const bf16*vr=vb+(size_t)j*HKV*D+c0; __m512 vv[4]; for(int c=0;c<4;c++)vv[c]=widen(vr+16*c);
            for(int r=0;r<G;r++){__m512 pj=_mm512_set1_ps(pp[r][j]); for(int c=0;c<4;c++)o[r][c]=_mm512_fmadd_ps(pj,vv[c],o[r][c]);} }
          for(int r=0;r<G;r++)for(int c=0;c<4;c++)_mm512_store_ps(acc[h][r]+c0+16*c,o[r][c]); }
      }
    }
    double t=now()-t0; if(t<best)best=t; out0+=acc[0][0][0]/l[0][0];
  }
  // check head 0 row 0 against a double reference on the last copy
  bf16*Kp=K[(3*copies-1)%copies],*Vp=V[(3*copies-1)%copies]; double ss[8192],mx=-1e30; 
  for(int i=0;i<ctx;i++){int pg=table[i/T],j=i%T; double a=0; for(int d=0;d<D;d++)a+=(double)qf[0][0][d]*b2f(Kp[((size_t)pg*T*HKV+j*HKV)*D+d]); ss[i]=a/sqrt(D); if(ss[i]>mx)mx=ss[i];}
  double den=0,num=0; for(int i=0;i<ctx;i++){int pg=table[i/T],j=i%T; double w=exp(ss[i]-mx); den+=w; num+=w*b2f(Vp[((size_t)pg*T*HKV+j*HKV)*D]);}
  printf("%s: %.3f ms, %.2f GB/s, err %.2e\n", amx?"amx logits":"fma logits", best*1e3, 2.0*ctx*HKV*D*2/best/1e9, fabs(acc[0][0][0]/l[0][0]-num/den));
  return out0==12345;
}
